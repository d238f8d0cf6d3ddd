package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestExecClosureOfADynamicBinary(t *testing.T) {
	bash := canonical("/bin/bash")
	if _, err := os.Stat(bash); err != nil {
		t.Skip("no /bin/bash")
	}
	c := execClosure("/bin/bash")
	if len(c.Exec) != 2 || c.Exec[0] != bash || !strings.Contains(filepath.Base(c.Exec[1]), "ld-linux") {
		t.Errorf("Exec = %v, want bash and its ELF interpreter", c.Exec)
	}
	if !slices.ContainsFunc(c.Read, func(p string) bool { return strings.HasPrefix(filepath.Base(p), "libc.so") }) {
		t.Errorf("Read = %v, want libc among bash's libraries", c.Read)
	}
	for _, p := range append(c.Exec, c.Read...) {
		if p != canonical(p) {
			t.Errorf("%s is not canonical", p)
		}
	}
}

func TestExecClosureOfAScript(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, text string }{
		{"plain", "#!/bin/sh\necho hi\n"},
		{"blanks and args", "#!  /bin/sh -e\necho hi\n"},
	} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, []byte(tc.text), 0o755); err != nil {
			t.Fatal(err)
		}
		c := execClosure(p)
		if len(c.Exec) < 2 || c.Exec[0] != p || c.Exec[1] != canonical("/bin/sh") {
			t.Errorf("%s: Exec = %v, want the script, then sh and its interpreter", tc.name, c.Exec)
		}
	}
	// A relative or missing interpreter grants nothing beyond the file.
	p := filepath.Join(dir, "relative")
	os.WriteFile(p, []byte("#!sh\n"), 0o755)
	if c := execClosure(p); len(c.Exec) != 1 || len(c.Read) != 0 {
		t.Errorf("relative interpreter: %+v", c)
	}
}

func TestExecClosureOfAScriptLoopIsBounded(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("#!"+b+"\n"), 0o755)
	os.WriteFile(b, []byte("#!"+a+"\n"), 0o755)
	if c := execClosure(a); len(c.Exec) != 2 {
		t.Errorf("a loop of two scripts: %v", c.Exec)
	}
}

func TestShebangInterpreter(t *testing.T) {
	for in, want := range map[string]string{
		"#!/bin/sh\n":                   "/bin/sh",
		"#! /usr/bin/env python3\n":     "/usr/bin/env",
		"#!/bin/bash":                   "/bin/bash",
		"#!\n":                          "",
		"#!bash\n":                      "",
		"#!\t/bin/dash -x -y\nmore\n":   "/bin/dash",
		"#!/a b\n#!/c\n":                "/a",
		"#!" + strings.Repeat("x", 300): "",
	} {
		if got := shebangInterpreter([]byte(in)); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// FuzzExecClosure feeds arbitrary bytes (ELF headers, scripts) to the
// closure walk: it must neither panic nor grow past its bounds.
func FuzzExecClosure(f *testing.F) {
	if b, err := os.ReadFile("/bin/true"); err == nil && len(b) > 0 {
		f.Add(b[:min(len(b), 8192)])
	}
	f.Add([]byte("#!/bin/sh\n"))
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "bin")
		if err := os.WriteFile(p, data, 0o755); err != nil {
			t.Fatal(err)
		}
		c := execClosure(p)
		if len(c.Exec)+len(c.Read) > maxClosureFiles || len(c.Exec) == 0 || c.Exec[0] != canonical(p) {
			t.Fatalf("closure %+v", c)
		}
		_, _, _, _, _ = elfInfo(bytes.NewReader(data), dir)
	})
}
