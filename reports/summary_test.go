package reports

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// summaryRows is a run of ten cases with every status but cancelled, two
// error codes, non-ASCII case ids and a multi-line error message.
func summaryRows() []ResultRow {
	row := func(id, status string, ms float64) ResultRow {
		return ResultRow{CaseID: id, Status: status, DurationMS: ms, Turns: 3, ToolCalls: 2, InputTokens: 1200, OutputTokens: 300}
	}
	withErr := func(r ResultRow, code, stage, msg string) ResultRow {
		r.ErrorCode, r.ErrorStage, r.ErrorMessage = &code, &stage, &msg
		return r
	}
	return []ResultRow{
		row("weather-1", StatusPassed, 812.4),
		row("weather-2", StatusPassed, 1534.9),
		withErr(row("login-3", StatusTimeout, 30000), errcode.Timeout, "loop", "the case ran out of --timeout (30s)"),
		row("天気-4", StatusPassed, 950),
		row("weather-5", StatusFailed, 640),
		withErr(row("search-0", StatusError, 12), errcode.RegistryIntegrity, "verify",
			"weather.wasm: sha256 does not match murmur.lock\n(expected abc, got def) and a long tail that will be cut off"),
		withErr(row("search-1", StatusError, 15), errcode.RegistryIntegrity, "verify", "tool.wasm: sha256 does not match murmur.lock"),
		row("weather-6", StatusPassed, 70),
		row("weather-7", StatusPassed, 30000),
		{CaseID: "weather-8", Status: StatusSkipped},
	}
}

// checkGolden compares got with testdata/name, or rewrites it under -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

func TestSummaryText(t *testing.T) {
	rows := summaryRows()
	var s Summary
	for _, r := range rows {
		s.Add(r)
	}
	var b strings.Builder
	if err := s.WriteText(&b, "runs/20250301/results.parquet", "runs/20250301/events.parquet", 31234*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "summary.golden", b.String())
	if s.Total() != 10 || s.Count(StatusError) != 2 || s.Count(StatusCancelled) != 0 {
		t.Errorf("Total, Count(error), Count(cancelled) = %d, %d, %d; want 10, 2, 0",
			s.Total(), s.Count(StatusError), s.Count(StatusCancelled))
	}

	// The text does not depend on the order rows arrive in.
	var r Summary
	for i := range rows {
		r.Add(rows[len(rows)-1-i])
	}
	var rb strings.Builder
	if err := r.WriteText(&rb, "runs/20250301/results.parquet", "runs/20250301/events.parquet", 31234*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(b.String(), rb.String()); diff != "" {
		t.Errorf("summary of reversed rows differs (-forward +reversed):\n%s", diff)
	}
}

func TestSummaryTextSmall(t *testing.T) {
	var s Summary
	r := ResultRow{CaseID: "only", Epoch: 2, Status: StatusPassed, DurationMS: 0.4, Turns: 1}
	s.Add(r)
	var b strings.Builder
	if err := s.WriteText(&b, "results.parquet", "", 850*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "summary-small.golden", b.String())

	var empty Summary
	b.Reset()
	if err := empty.WriteText(&b, "", "", 0); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "summary-empty.golden", b.String())
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestSummaryWriteError(t *testing.T) {
	var s Summary
	if err := s.WriteText(failingWriter{}, "", "", time.Second); !errcode.Is(err, errcode.IO) {
		t.Errorf("WriteText to a failing writer = %v, want code %s", err, errcode.IO)
	}
}
