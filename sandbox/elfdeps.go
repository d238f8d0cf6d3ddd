package sandbox

import (
	"bytes"
	"debug/elf"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// An exec closure is what execve of one file needs from the host, as murmur
// grants it (murmur-formats.md §5.3): the file, its ELF interpreter
// (PT_INTERP) and the DT_NEEDED libraries, transitively; for a "#!" script
// the interpreter named on its first line and that interpreter's closure.
// The kernel opens the file, a script's interpreter and the ELF interpreter
// for execution, so those need Landlock's EXECUTE right; libraries are
// opened and mapped by the dynamic loader with plain reads, which Landlock's
// EXECUTE does not govern (tested: bash runs with its libraries readable
// only), so they need READ_FILE alone.
type closure struct {
	Exec []string // canonical paths the kernel opens for execution
	Read []string // canonical paths of libraries the loader maps
}

// Bounds on what one closure may hold and how far a chain of "#!" scripts
// and libraries is followed: a hostile binary cannot make the walk big.
const (
	maxClosureFiles = 512
	maxScriptDepth  = 4 // the kernel's own limit on nested interpreters
	shebangMax      = 256
)

// libDirs are the folders searched for a DT_NEEDED library after the
// object's own DT_RPATH/DT_RUNPATH: the standard multiarch and legacy
// folders of glibc and Debian-style systems. /etc/ld.so.cache is not
// parsed (its format is glibc's internal one); a library found only
// through it or LD_LIBRARY_PATH is not granted, but the system folders are
// readable anyway, so only a library outside them would be missed.
func libDirs() []string {
	triplet := map[string]string{"amd64": "x86_64-linux-gnu", "arm64": "aarch64-linux-gnu"}[runtime.GOARCH]
	var dirs []string
	if triplet != "" {
		dirs = append(dirs, "/lib/"+triplet, "/usr/lib/"+triplet, "/usr/local/lib/"+triplet)
	}
	return append(dirs, "/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib")
}

// execClosure computes path's closure. A file that cannot be read or
// parsed still has itself in Exec (the kernel decides whether it runs).
func execClosure(path string) closure {
	w := walker{seen: map[string]bool{}}
	w.exec(path, 0)
	return w.c
}

type walker struct {
	c    closure
	seen map[string]bool
}

// add records p once; it reports false when p was seen or the bound is hit.
func (w *walker) add(p string) bool {
	if w.seen[p] || len(w.seen) >= maxClosureFiles {
		return false
	}
	w.seen[p] = true
	return true
}

func canonical(p string) string {
	if c, err := filepath.EvalSymlinks(p); err == nil {
		return c
	}
	return filepath.Clean(p)
}

// exec adds a file the kernel executes and what it needs.
func (w *walker) exec(path string, depth int) {
	path = canonical(path)
	if !w.add(path) {
		return
	}
	w.c.Exec = append(w.c.Exec, path)
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return
	}
	head := make([]byte, shebangMax)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte("#!")):
		if interp := shebangInterpreter(head); interp != "" && depth < maxScriptDepth {
			w.exec(interp, depth+1)
		}
	case bytes.HasPrefix(head, []byte(elf.ELFMAG)):
		interp, needed, search, machine, ok := elfInfo(f, filepath.Dir(path))
		if !ok {
			return
		}
		if interp != "" {
			w.exec(interp, maxScriptDepth) // an ELF interpreter is not searched further for scripts
		}
		w.libs(needed, search, machine)
	}
}

// libs resolves needed names and walks each library's own needs.
func (w *walker) libs(needed, search []string, machine elf.Machine) {
	for _, name := range needed {
		lib := findLib(name, search, machine)
		if lib == "" || !w.add(lib) {
			continue
		}
		w.c.Read = append(w.c.Read, lib)
		f, err := os.Open(lib)
		if err != nil {
			continue
		}
		_, more, libSearch, _, ok := elfInfo(f, filepath.Dir(lib))
		_ = f.Close()
		if ok {
			w.libs(more, libSearch, machine)
		}
	}
}

// shebangInterpreter is the interpreter path of a "#!" first line, as the
// kernel reads it: up to the first blank or newline after optional blanks.
func shebangInterpreter(head []byte) string {
	line := head[2:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(string(line))
	if len(fields) == 0 || !strings.HasPrefix(fields[0], "/") {
		return ""
	}
	return fields[0]
}

// elfInfo reads an ELF file's interpreter, needed libraries and library
// search path (DT_RPATH when there is no DT_RUNPATH, then DT_RUNPATH, then
// libDirs; $ORIGIN replaced by origin). ok is false for anything debug/elf
// cannot parse.
func elfInfo(r io.ReaderAt, origin string) (interp string, needed, search []string, machine elf.Machine, ok bool) {
	ef, err := elf.NewFile(r)
	if err != nil {
		return "", nil, nil, 0, false
	}
	defer ef.Close()
	for _, p := range ef.Progs {
		if p.Type != elf.PT_INTERP || p.Filesz == 0 || p.Filesz > 4096 {
			continue
		}
		b := make([]byte, p.Filesz)
		if _, err := p.ReadAt(b, 0); err == nil {
			interp = string(bytes.TrimRight(b, "\x00"))
		}
	}
	needed, err = ef.DynString(elf.DT_NEEDED)
	if err != nil && !errors.Is(err, io.EOF) {
		needed = nil
	}
	runpath, _ := ef.DynString(elf.DT_RUNPATH)
	if len(runpath) == 0 {
		runpath, _ = ef.DynString(elf.DT_RPATH)
	}
	for _, rp := range runpath {
		for _, d := range filepath.SplitList(rp) {
			d = strings.NewReplacer("${ORIGIN}", origin, "$ORIGIN", origin).Replace(d)
			if filepath.IsAbs(d) {
				search = append(search, filepath.Clean(d))
			}
		}
	}
	return interp, needed, append(search, libDirs()...), ef.Machine, true
}

// findLib is the first file called name in search whose ELF machine is
// machine (a 32-bit library of the same name is skipped, as the loader
// does). A name with a slash is used as it is.
func findLib(name string, search []string, machine elf.Machine) string {
	if name == "" || len(name) > 255 {
		return ""
	}
	candidates := []string{name}
	if !strings.Contains(name, "/") {
		candidates = candidates[:0]
		for _, d := range search {
			candidates = append(candidates, filepath.Join(d, name))
		}
	}
	for _, c := range candidates {
		if !filepath.IsAbs(c) {
			continue
		}
		f, err := os.Open(c)
		if err != nil {
			continue
		}
		ef, err := elf.NewFile(f)
		match := err == nil && ef.Machine == machine
		_ = f.Close()
		if match {
			return canonical(c)
		}
	}
	return ""
}
