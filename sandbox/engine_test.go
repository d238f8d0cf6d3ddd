package sandbox

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestCompilationCacheOnDisk checks that compiling writes the disk cache a
// later run reads (BenchmarkCompileCached measures the speed-up).
func TestCompilationCacheOnDisk(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cache") // created by NewEngine
	wasm := coreModule([]wasmImport{{"wasi_snapshot_preview1", "proc_exit", 1}}, 1, "_start")
	for run := 1; run <= 2; run++ {
		e, err := NewEngine(context.Background(), Config{CacheDir: dir})
		if err != nil {
			t.Fatalf("run %d: NewEngine: %v", run, err)
		}
		m, err := e.Compile(context.Background(), "tool", wasm)
		if err != nil {
			t.Fatalf("run %d: Compile: %v", run, err)
		}
		if _, err := e.Run(context.Background(), m, Call{}); err != nil {
			t.Fatalf("run %d: Run: %v", run, err)
		}
		if err := e.Close(context.Background()); err != nil {
			t.Fatalf("run %d: Close: %v", run, err)
		}
		if n := countFiles(t, dir); n == 0 {
			t.Fatalf("run %d: cache dir %s holds no files after a compile", run, dir)
		}
	}
}

func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestNewEngineBadCacheDir(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := NewEngine(context.Background(), Config{CacheDir: file})
	wantCode(t, err, errcode.IO)
}

func TestEngineWithoutDiskCache(t *testing.T) {
	t.Parallel()
	e, err := NewEngine(context.Background(), Config{})
	if err != nil {
		t.Fatalf("NewEngine: %v", err)
	}
	defer e.Close(context.Background())
	m, err := e.Compile(context.Background(), "tool", coreModule(nil, -1, "_start"))
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	out, err := e.Run(context.Background(), m, Call{})
	if err != nil || out.ExitCode != 0 {
		t.Fatalf("Run = %+v, %v; want exit 0", out, err)
	}
}
