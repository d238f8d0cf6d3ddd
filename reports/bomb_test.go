package reports_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/internal/parquetbomb"
	"github.com/murmur-nexus/murmur-eval/reports"
)

// TestParquetBombIsRefusedInBoundedMemory: a 39 KB results.parquet whose
// first page decompresses to 1 GiB (its header says 2 bytes) is refused
// with E-EVL-052 before parquet-go decodes it, allocating a few MiB (the
// unbounded reader allocated 6.3 GiB and accepted the file).
func TestParquetBombIsRefusedInBoundedMemory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, reports.ResultsFile)
	row := reports.ResultRow{RunID: "run_x", CaseID: "a", Status: reports.StatusPassed, StartedAt: time.Now()}
	if err := parquetbomb.WriteResults(path, 1<<30, []reports.ResultRow{row}); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if fi.Size() > 64<<10 {
		t.Fatalf("the bomb is %d bytes, want a small file", fi.Size())
	}
	for _, p := range []string{dir, path} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := reports.ReadRun(p)
		runtime.ReadMemStats(&after)
		if !errcode.Is(err, errcode.ReadLimit) || !strings.Contains(err.Error(), path) {
			t.Fatalf("ReadRun(%s) = %v, want %s naming %s", p, err, errcode.ReadLimit, path)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
			t.Errorf("ReadRun(%s) allocated %d MiB before refusing the bomb, want under 32 MiB", p, alloc>>20)
		}
	}
}
