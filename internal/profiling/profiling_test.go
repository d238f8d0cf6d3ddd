package profiling

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestStart: each profile asked for is written (the heap profile when heap
// is called), none is written when none is asked for, and a profile that
// cannot be created is an I/O error naming its flag.
func TestStart(t *testing.T) {
	dir := t.TempDir()
	files := Files{CPU: filepath.Join(dir, "cpu.pprof"), Mem: filepath.Join(dir, "mem.pprof"), Exec: filepath.Join(dir, "exec.trace")}
	stop, heap, err := files.Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := heap(); err != nil {
		t.Fatal(err)
	}
	stop()
	for _, p := range []string{files.CPU, files.Mem, files.Exec} {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v, size %v; want a profile", p, err, fi)
		}
	}

	stop, heap, err = Files{}.Start()
	if err != nil || heap() != nil {
		t.Fatalf("no profile: %v", err)
	}
	stop()

	missing := filepath.Join(dir, "no", "such", "folder")
	for _, f := range []Files{{CPU: filepath.Join(missing, "cpu")}, {Exec: filepath.Join(missing, "trace")}} {
		if _, _, err := f.Start(); errcode.Code(err) != errcode.IO {
			t.Errorf("%+v: code %q, want %s (%v)", f, errcode.Code(err), errcode.IO, err)
		}
	}
	_, heap, err = Files{Mem: filepath.Join(missing, "mem")}.Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := heap(); errcode.Code(err) != errcode.IO {
		t.Errorf("heap into a missing folder: code %q, want %s", errcode.Code(err), errcode.IO)
	}
}
