package collect

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/gates"
	"github.com/murmur-nexus/murmur-eval/reports"
)

// writeRun writes a run folder whose results are rows, as a run's sinks
// do, and returns its summary.
func writeRun(t *testing.T, dir string, rows ...reports.ResultRow) *reports.Summary {
	t.Helper()
	scores, err := NewScoreSink(dir)
	if err != nil {
		t.Fatal(err)
	}
	sinks, err := OpenSinks(dir, func(err error) { t.Error(err) })
	if err != nil {
		t.Fatal(err)
	}
	scores.Start(func(err error) { t.Error(err) })
	s := &reports.Summary{}
	for _, r := range rows {
		sinks.results <- r
		s.Add(r)
	}
	if err := firstErr(sinks.Close(), scores.Close()); err != nil {
		t.Fatal(err)
	}
	return s
}

func row(id, status string) reports.ResultRow {
	return reports.ResultRow{RunID: "run_1", CaseID: id, Epoch: 1, Attempt: 1, Status: status, StartedAt: time.UnixMilli(1_764_446_400_000)}
}

// TestFinish: a completed run is compared with its baseline and has the
// gates applied, one that did not complete has neither; either way the
// report files are written, readable by everyone, and show reads them
// back (ReadDigest).
func TestFinish(t *testing.T) {
	base := t.TempDir()
	writeRun(t, base, row("a", reports.StatusPassed), row("b", reports.StatusPassed))
	baseline, err := reports.ReadRun(base)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		completed bool
		baseline  *reports.RunData
		gates     []string // the gates applied
		diff      bool
	}{
		{"completed", true, nil, []string{"max_error_rate", "fail_under"}, false},
		{"completed with a baseline", true, baseline, []string{"max_error_rate", "fail_under", "baseline"}, true},
		{"not completed", false, baseline, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := writeRun(t, dir, row("a", reports.StatusPassed), row("b", reports.StatusFailed))
			d := s.Digest(0)
			end := Ending{Dir: dir, Out: "runs/x", Baseline: tt.baseline, Limits: reports.DefaultReadLimits(),
				Gates: gates.Options{Alpha: gates.DefaultAlpha, FailUnder: 0.8}, Started: time.Now()}
			diff, v, err := end.Finish(&d, &reports.JUnit{}, tt.completed)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, g := range v.Gates {
				names = append(names, g.Gate)
			}
			if len(names) != len(tt.gates) || (diff != nil) != tt.diff || (d.Baseline != nil) != tt.diff {
				t.Fatalf("gates %v, diff %v; want %v, %v", names, diff != nil, tt.gates, tt.diff)
			}
			for i := range names {
				if names[i] != tt.gates[i] {
					t.Errorf("gates %v, want %v", names, tt.gates)
				}
			}
			if tt.completed && !v.GateFailed {
				t.Error("a pass rate of 50% passed --fail-under 0.8")
			}
			for _, f := range []string{SummaryJSONFile, SummaryMDFile, JUnitFile} {
				fi, err := os.Stat(filepath.Join(dir, f))
				if err != nil || fi.Mode().Perm() != 0o644 {
					t.Errorf("%s: %v %v, want a file with mode 0644", f, err, fi)
				}
			}
			got, err := ReadDigest(dir, reports.DefaultReadLimits())
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Gates) != len(tt.gates) || got.PassRate.Total != 2 {
				t.Errorf("read back: %d gates, %d scored; want %d, 2", len(got.Gates), got.PassRate.Total, len(tt.gates))
			}
		})
	}
}

// TestReadDigest: a run without summary.json (killed before its end) reads
// from its rows alone, with no gate; a results file reads as its folder; a
// missing run is refused.
func TestReadDigest(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, row("a", reports.StatusPassed))
	if ReadSummary(dir) != nil {
		t.Error("ReadSummary found a summary.json that was never written")
	}
	for _, path := range []string{dir, filepath.Join(dir, reports.ResultsFile)} {
		d, err := ReadDigest(path, reports.DefaultReadLimits())
		if err != nil {
			t.Fatal(err)
		}
		if d.Gates == nil || len(d.Gates) != 0 || d.Cases != 1 {
			t.Errorf("%s: gates %v, %d cases; want [] and 1", path, d.Gates, d.Cases)
		}
	}
	if _, err := ReadDigest(filepath.Join(dir, "none"), reports.DefaultReadLimits()); err == nil {
		t.Error("a missing run read")
	}
	scored := t.TempDir()
	scores, err := NewScoreSink(scored)
	if err != nil {
		t.Fatal(err)
	}
	scores.Start(func(err error) { t.Error(err) })
	scores.rows <- reports.ScoreRow{RunID: "run_1", CaseID: "a", Epoch: 1, Attempt: 1, Scorer: "exit_ok", Result: "pass", Score: 1}
	if err := scores.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadDigest(filepath.Join(scored, reports.ScoresFile), reports.DefaultReadLimits()); errcode.Code(err) != errcode.Usage {
		t.Errorf("a scores file alone: code %q, want %s (%v)", errcode.Code(err), errcode.Usage, err)
	}
}
