package capsule

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

const sumA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

func TestParseLockValid(t *testing.T) {
	src := `
lock_version: 1
artifacts:
  - name: echo
    resolved_version: 1.10
    sha256:
      wasm: ` + sumA + `
    origin: operator
  - name: driver
    resolved_version: "0.3.33"
    sha256: {wasm: bbbb}
future: yes
`
	got, err := ParseLock("murmur.lock", []byte(src))
	if err != nil {
		t.Fatalf("ParseLock: %v", err)
	}
	want := &Lock{Path: "murmur.lock", LockVersion: 1, Artifacts: []LockEntry{
		{Name: "echo", ResolvedVersion: "1.10", SHA256: sumA},
		{Name: "driver", ResolvedVersion: "0.3.33", SHA256: "bbbb"},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lock mismatch (-want +got):\n%s", diff)
	}
	if e, ok := got.Entry("driver"); !ok || e.ResolvedVersion != "0.3.33" {
		t.Errorf("Entry(driver) = %+v, %v", e, ok)
	}
	if _, ok := got.Entry("nope"); ok {
		t.Errorf("Entry(nope) found an entry")
	}
}

func TestParseLockInvalid(t *testing.T) {
	entry := func(name, version, sum string) string {
		return "  - {name: " + name + ", resolved_version: " + version + ", sha256: {wasm: " + sum + "}}\n"
	}
	tests := []struct {
		name, src, where string
	}{
		{"empty file", "", "murmur.lock"},
		{"not yaml", "lock_version: [1\n", "murmur.lock:1"},
		{"root is a list", "- 1\n", "murmur.lock:1:1"},
		{"missing lock_version", "artifacts: []\n", "murmur.lock:1:1"},
		{"missing artifacts", "lock_version: 1\n", "murmur.lock:1:1"},
		{"version is a word", "lock_version: one\nartifacts: []\n", "murmur.lock:1:15"},
		{"unsupported version", "lock_version: 2\nartifacts: []\n", "murmur.lock:1:15"},
		{"entry not a map", "lock_version: 1\nartifacts: [x]\n", "murmur.lock:2:13"},
		{"entry missing sha256", "lock_version: 1\nartifacts:\n  - {name: a, resolved_version: '1'}\n", "murmur.lock:3:5"},
		{"entry missing wasm", "lock_version: 1\nartifacts:\n  - {name: a, resolved_version: '1', sha256: {}}\n", "murmur.lock:3:46"},
		{"empty name", "lock_version: 1\nartifacts:\n" + entry("' '", "'1'", sumA), "murmur.lock:3:5"},
		{"empty resolved_version", "lock_version: 1\nartifacts:\n" + entry("a", "''", sumA), "murmur.lock:3:5"},
		{"empty sha256", "lock_version: 1\nartifacts:\n" + entry("a", "'1'", "''"), "murmur.lock:3:5"},
		{"null name", "lock_version: 1\nartifacts:\n" + entry("~", "'1'", sumA), "murmur.lock:3:5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseLock("murmur.lock", []byte(tt.src))
			if got := errcode.Code(err); got != errcode.RunLock {
				t.Fatalf("ParseLock = %+v, %v; want code %s", l, err, errcode.RunLock)
			}
			if got := whereOf(asError(err)); got != tt.where {
				t.Errorf("where = %q, want %q (error: %v)", got, tt.where, err)
			}
			if !strings.HasPrefix(asError(err).Msg, "invalid murmur.lock: ") {
				t.Errorf("message %q lacks murmur's prefix", asError(err).Msg)
			}
		})
	}
}

func TestReadLock(t *testing.T) {
	dir := t.TempDir()
	l, err := ReadLock(LockPath(dir))
	if l != nil || err != nil {
		t.Fatalf("ReadLock(missing) = %v, %v; want nil, nil", l, err)
	}
	path := LockPath(dir)
	if err := os.WriteFile(path, []byte("lock_version: 1\nartifacts: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err = ReadLock(path)
	if err != nil || l == nil || len(l.Artifacts) != 0 {
		t.Fatalf("ReadLock = %+v, %v; want an empty lock", l, err)
	}
	if _, err := ReadLock(filepath.Dir(path)); errcode.Code(err) != errcode.IO {
		t.Errorf("ReadLock(dir): code = %q, want %q", errcode.Code(err), errcode.IO)
	}
}
