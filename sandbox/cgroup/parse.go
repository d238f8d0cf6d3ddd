package cgroup

import (
	"bytes"
	"strconv"
	"strings"
)

// The kernel's files are read as text and parsed here, without system
// calls, so the parsers are tested and fuzzed on every platform.

// keyedValue returns the value of the line "key N" in a flat keyed file
// (memory.events, pids.events, v1 memory.oom_control), and whether there
// is one. A line whose value is not a number counts as absent: attribution
// then declines to name a limit rather than invent one.
func keyedValue(contents []byte, key string) (uint64, bool) {
	for len(contents) > 0 {
		line := contents
		if i := bytes.IndexByte(contents, '\n'); i >= 0 {
			line, contents = contents[:i], contents[i+1:]
		} else {
			contents = nil
		}
		k, v, ok := strings.Cut(string(line), " ")
		if !ok || k != key {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return 0, false
		}
		return n, true
	}
	return 0, false
}

// pidList parses cgroup.procs: one decimal pid a line. Anything else on a
// line (the kernel writes nothing else) is skipped.
func pidList(contents []byte) []int {
	var pids []int
	for _, f := range strings.Fields(string(contents)) {
		if n, err := strconv.Atoi(f); err == nil && n > 0 {
			pids = append(pids, n)
		}
	}
	return pids
}

// mount is one cgroup line of /proc/self/mountinfo.
type mount struct {
	root     string   // the folder of the hierarchy mounted here, "/" for its root
	point    string   // where it is mounted
	readOnly bool     // mounted ro (a container's usual cgroup mount)
	v2       bool     // cgroup2
	supers   []string // a v1 mount's super options: its controllers, "rw", "name=..."
}

// cgroupMounts returns the cgroup and cgroup2 mounts in mountinfo, in
// order. The format (proc(5)): "ID PARENT MAJ:MIN ROOT POINT OPTIONS
// [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS", paths octal-escaped.
func cgroupMounts(mountinfo []byte) []mount {
	var out []mount
	for _, line := range strings.Split(string(mountinfo), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, p := strings.Fields(pre), strings.Fields(post)
		if len(f) < 6 || len(p) < 1 || (p[0] != "cgroup" && p[0] != "cgroup2") {
			continue
		}
		m := mount{root: unescapeOctal(f[3]), point: unescapeOctal(f[4]), v2: p[0] == "cgroup2"}
		for _, o := range strings.Split(f[5], ",") {
			m.readOnly = m.readOnly || o == "ro"
		}
		if len(p) >= 3 {
			m.supers = strings.Split(p[2], ",")
		}
		out = append(out, m)
	}
	return out
}

// has reports whether a v1 mount carries controller.
func (m mount) has(controller string) bool {
	for _, s := range m.supers {
		if s == controller {
			return true
		}
	}
	return false
}

// procCgroup is /proc/self/cgroup: the v2 path ("0::PATH", ok when there
// is such a line) and each v1 controller's path.
type procCgroup struct {
	unified    string
	hasUnified bool
	v1         map[string]string
}

// parseProcCgroup parses /proc/self/cgroup ("ID:CONTROLLERS:PATH" lines;
// a path may itself hold ':').
func parseProcCgroup(contents []byte) procCgroup {
	pc := procCgroup{v1: map[string]string{}}
	for _, line := range strings.Split(string(contents), "\n") {
		id, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		ctrls, path, ok := strings.Cut(rest, ":")
		if !ok || !strings.HasPrefix(path, "/") {
			continue
		}
		if id == "0" && ctrls == "" {
			pc.unified, pc.hasUnified = path, true
			continue
		}
		for _, c := range strings.Split(ctrls, ",") {
			if c != "" {
				pc.v1[c] = path
			}
		}
	}
	return pc
}

// within returns own relative to a mount of the hierarchy's folder root:
// where this process's cgroup is below the mount point, and false when the
// mount does not show it (a container's mount of another folder).
func within(root, own string) (string, bool) {
	if root == "/" {
		return own, true
	}
	if own == root {
		return "/", true
	}
	if rest, ok := strings.CutPrefix(own, root); ok && strings.HasPrefix(rest, "/") {
		return rest, true
	}
	return "", false
}

// unescapeOctal undoes mountinfo's escapes: space, tab, newline and
// backslash are written as \NNN in octal.
func unescapeOctal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }
