package workspace

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Reserved returns the top-level names of a session folder that murmur and
// murmur-eval write (murmur-formats.md §7, the check's and the setup's
// HOME): a workspace holding one is refused rather than letting its file
// be overwritten, or be mistaken for the harness's.
func Reserved() []string {
	return []string{
		"tools", "logs", "out", "contexts", "task.md", "input.txt", "MURMUR.md",
		"trace.jsonl", "eval.jsonl", ".capsule-home", ".check-home", ".setup-home",
	}
}

// kind of a base entry.
type kind uint8

const (
	kindDir kind = iota
	kindFile
	kindLink
)

// entry is one file, folder or link of a base.
type entry struct {
	name   string // slash-separated, local, cleaned
	kind   kind
	mode   fs.FileMode // permission bits: 0755 or 0644 for files, by their exec bit
	size   int64
	target string // a link's target
}

func entryErr(name, format string, args ...any) *errcode.Error {
	return errcode.New(errcode.WorkspaceEntry, "workspace entry %q refused: %s", name, fmt.Sprintf(format, args...)).
		WithHint("a workspace holds files, folders and links that stay inside it, under names that are relative and without \"..\"")
}

// cleanName checks an entry name as zip_guard does (no absolute name, no
// ".." component, no drive or backslash-rooted name, no NUL) and more: no
// backslash at all (a separator elsewhere), no name the session reserves.
// It returns the cleaned name, "" for the top folder itself.
func cleanName(raw string) (string, error) {
	switch {
	case strings.HasPrefix(raw, "/"):
		return "", entryErr(raw, "an absolute name")
	case strings.ContainsRune(raw, 0):
		return "", entryErr(raw, "a NUL byte in its name")
	case strings.ContainsRune(raw, '\\'):
		return "", entryErr(raw, "a backslash in its name")
	case len(raw) >= 2 && raw[1] == ':':
		return "", entryErr(raw, "a drive-rooted name")
	}
	for _, part := range strings.Split(raw, "/") {
		if part == ".." {
			return "", entryErr(raw, "a '..' component")
		}
	}
	n := path.Clean(raw)
	if n == "." {
		return "", nil
	}
	top, _, _ := strings.Cut(n, "/")
	for _, r := range Reserved() {
		if top == r {
			return "", entryErr(raw, "%q is a name of the session folder murmur-eval writes", r)
		}
	}
	return n, nil
}

// checkLink refuses a link that is absolute or leads out of the workspace
// from where it is (name), lexically: the base holds no link that a
// relative walk could follow out.
func checkLink(name, target string) error {
	switch {
	case target == "":
		return entryErr(name, "an empty link target")
	case strings.HasPrefix(target, "/"):
		return entryErr(name, "a link to the absolute path %q", target)
	case strings.ContainsRune(target, 0):
		return entryErr(name, "a NUL byte in its link target")
	}
	depth := strings.Count(name, "/") // folders above the link
	for _, part := range strings.Split(target, "/") {
		switch part {
		case "", ".":
		case "..":
			depth--
			if depth < 0 {
				return entryErr(name, "a link to %q, outside the workspace", target)
			}
		default:
			depth++
		}
	}
	return nil
}

// tree collects the entries of a workspace being read, refusing duplicates
// and entries beneath a link.
type tree struct {
	count   counter
	entries []entry
	seen    map[string]kind
}

func newTree(lim Limits) *tree { return &tree{count: counter{lim: lim}, seen: map[string]kind{}} }

// add records e, with every parent folder it implies.
func (t *tree) add(e entry) error {
	if err := t.count.entry(e.name, e.size); err != nil {
		return err
	}
	if k, dup := t.seen[e.name]; dup {
		if k == kindDir && e.kind == kindDir {
			return nil // tar lists a folder again; harmless
		}
		return entryErr(e.name, "listed more than once")
	}
	// Parents: implied folders, and never a link or a file.
	for i := 0; i < len(e.name); i++ {
		if e.name[i] != '/' {
			continue
		}
		parent := e.name[:i]
		switch k, ok := t.seen[parent]; {
		case !ok:
			t.seen[parent] = kindDir
			t.entries = append(t.entries, entry{name: parent, kind: kindDir, mode: 0o755})
		case k == kindLink:
			return entryErr(e.name, "beneath the link %q", parent)
		case k == kindFile:
			return entryErr(e.name, "beneath the file %q", parent)
		}
	}
	t.seen[e.name] = e.kind
	t.entries = append(t.entries, e)
	return nil
}

// fileMode is what a file's copy gets: 0755 when any exec bit is set,
// 0644 otherwise (no set-id, sticky or group/other write bits).
func fileMode(m fs.FileMode) fs.FileMode {
	if m&0o111 != 0 {
		return 0o755
	}
	return 0o644
}

// maxHops bounds the links followed resolving one link (the kernel's 40).
const maxHops = 40

// checkLinksResolve follows every link of the tree through the tree's
// other links, as the kernel would, and refuses one that leaves the
// workspace on the way ("l2 -> d/l1/../..", with "d/l1 -> .."), or loops:
// each target alone passed checkLink, which is lexical.
func (t *tree) checkLinksResolve() error {
	links := map[string]string{}
	for _, e := range t.entries {
		if e.kind == kindLink {
			links[e.name] = e.target
		}
	}
	for name, target := range links {
		var cur []string
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			cur = strings.Split(name[:i], "/")
		}
		queue := strings.Split(target, "/")
		hops := 0
		for len(queue) > 0 {
			c := queue[0]
			queue = queue[1:]
			switch c {
			case "", ".":
				continue
			case "..":
				if len(cur) == 0 {
					return entryErr(name, "a link to %q, which leads out of the workspace through its links", target)
				}
				cur = cur[:len(cur)-1]
				continue
			}
			cur = append(cur, c)
			if next, ok := links[strings.Join(cur, "/")]; ok {
				if hops++; hops > maxHops {
					return entryErr(name, "a link to %q that loops", target)
				}
				cur = cur[:len(cur)-1]
				queue = append(strings.Split(next, "/"), queue...)
			}
		}
	}
	return nil
}
