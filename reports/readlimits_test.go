package reports

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestReadLimitsRefuseEachPastLimit: a real run folder reads with the
// default limits, and each limit, lowered under what the file needs,
// refuses it with E-EVL-052 naming the limit; nothing is decoded first.
func TestReadLimitsRefuseEachPastLimit(t *testing.T) {
	base, _ := engineeredRuns(300, 0, 0)
	for i := range base.Scores { // strings that compress well, as reasons do: past ratio 1
		base.Scores[i].Reason = strings.Repeat("turns=2 max=10 ", 4)
	}
	dir := filepath.Join(t.TempDir(), "run")
	writeRun(t, dir, base) // 64 rows per group: 5 row groups of results
	got, err := ReadRunLimited(dir, DefaultReadLimits())
	if err != nil {
		t.Fatalf("default limits: %v", errcode.Format(err))
	}
	if diff := cmp.Diff(base.Results, got.Results); diff != "" {
		t.Fatalf("results (-want +got):\n%s", diff)
	}
	tests := []struct {
		limit string
		value string
	}{
		{"file", "1KiB"},
		{"footer", "1KiB"},
		{"metadata", "1KiB"},
		{"rows", "299"},
		{"row-groups", "4"},
		{"columns", "10"},
		{"page", "100"},
		{"page-values", "10"},
		{"chunk", "100"},
		{"row-group", "1KiB"},
		{"total", "4KiB"},
		{"ratio", "1,ratio-floor=1"},
	}
	for _, tt := range tests {
		t.Run(tt.limit, func(t *testing.T) {
			lim, err := ParseReadLimits(tt.limit+"="+tt.value, DefaultReadLimits())
			if err != nil {
				t.Fatal(err)
			}
			_, err = ReadRunLimited(dir, lim)
			if !errcode.Is(err, errcode.ReadLimit) {
				t.Fatalf("ReadRunLimited with %s=%s = %v, want %s", tt.limit, tt.value, err, errcode.ReadLimit)
			}
			if msg := errcode.Format(err); !strings.Contains(msg, "read limit "+tt.limit+"=") || !strings.Contains(msg, ReadLimitsEnv) ||
				!strings.Contains(msg, ".parquet: ") {
				t.Errorf("message does not name the file, the limit and how to raise it:\n%s", msg)
			}
		})
	}
}

func TestParseReadLimits(t *testing.T) {
	def := DefaultReadLimits()
	got, err := ParseReadLimits(" rows=20000000, total=32GiB ,page=128MiB,", def)
	if err != nil {
		t.Fatal(err)
	}
	want := def
	want.Rows, want.TotalBytes, want.PageBytes = 20_000_000, 32<<30, 128<<20
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got, err := ParseReadLimits("", def); err != nil || got != def {
		t.Errorf("empty: %+v, %v", got, err)
	}
	for _, bad := range []string{"rows", "rows=0", "rows=-1", "rows=1KiB", "pages=1", "total=1PiB", "total=99999999999GiB", "ratio=x"} {
		if _, err := ParseReadLimits(bad, def); !errcode.Is(err, errcode.Usage) {
			t.Errorf("ParseReadLimits(%q) = %v, want %s", bad, err, errcode.Usage)
		}
	}
}

// TestReadRefusesWhatIsNotAFile: a FIFO named results.parquet is refused
// at once, not waited on.
func TestReadRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, ResultsFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRun(dir); !errcode.Is(err, errcode.IO) {
		t.Errorf("ReadRun of a FIFO = %v, want %s", err, errcode.IO)
	}
	if _, err := ReadRun(filepath.Join(dir, ResultsFile)); !errcode.Is(err, errcode.IO) {
		t.Errorf("ReadRun of a FIFO = %v, want %s", err, errcode.IO)
	}
}

// FuzzReadRun: whatever the bytes of a results.parquet, reading it with
// small limits neither panics nor fails with anything but a coded error.
func FuzzReadRun(f *testing.F) {
	base, _ := engineeredRuns(20, 0, 0)
	seed := filepath.Join(f.TempDir(), ResultsFile)
	writeAll(f, seed, 8, base.Results)
	good, err := os.ReadFile(seed)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	lim, _ := ParseReadLimits("file=4MiB,footer=1MiB,metadata=16MiB,rows=100000,page=1MiB,page-values=100000,chunk=4MiB,row-group=16MiB,total=16MiB,ratio-floor=1MiB", DefaultReadLimits())
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), ResultsFile)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := ReadRunLimited(path, lim)
		if err != nil {
			if errcode.Code(err) == "" {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		if int64(len(r.Results)) > lim.Rows {
			t.Fatalf("%d rows read past the limit", len(r.Results))
		}
	})
}
