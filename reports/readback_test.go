package reports

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// writeRun writes r's rows as a run folder's Parquet files under dir.
func writeRun(t *testing.T, dir string, r *RunData) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeAll(t, filepath.Join(dir, ResultsFile), 64, r.Results)
	writeAll(t, filepath.Join(dir, ScoresFile), 64, r.Scores)
}

func TestReadRunBack(t *testing.T) {
	base, _ := engineeredRuns(30, 0, 0)
	dir := filepath.Join(t.TempDir(), "run")
	writeRun(t, dir, base)

	for _, path := range []string{dir, filepath.Join(dir, ResultsFile), filepath.Join(dir, ScoresFile)} {
		got, err := ReadRun(path)
		if err != nil {
			t.Fatalf("ReadRun(%s): %v", path, err)
		}
		if diff := cmp.Diff(base.Results, got.Results); diff != "" {
			t.Errorf("ReadRun(%s) results (-want +got):\n%s", path, diff)
		}
		if diff := cmp.Diff(base.Scores, got.Scores); diff != "" {
			t.Errorf("ReadRun(%s) scores (-want +got):\n%s", path, diff)
		}
	}

	// A scores file under another name is taken alone; overall then comes
	// from the scores.
	renamed := filepath.Join(t.TempDir(), "nightly-base-scores.parquet")
	data, _ := os.ReadFile(filepath.Join(dir, ScoresFile))
	if err := os.WriteFile(renamed, data, 0o644); err != nil {
		t.Fatal(err)
	}
	alone, err := ReadRun(renamed)
	if err != nil || alone.Results != nil || len(alone.Scores) != 60 {
		t.Fatalf("ReadRun(renamed scores) = %d results, %d scores, %v", len(alone.Results), len(alone.Scores), err)
	}
	r := Diff(alone, base, DiffOptions{Alpha: 0.05})
	if o := r.Scorers[0]; o.Scorer != OverallScorer || o.Paired != 30 || o.Base.Passed != o.Head.Passed {
		t.Errorf("diff of a lone scores file against its run: %+v", o)
	}
	if s := base.Summary().Digest(0); s.PassRate.Passed != 23 || len(s.Scorers) != 2 {
		t.Errorf("summary from read-back rows: %+v", s.PassRate)
	}
}

func TestReadRunErrors(t *testing.T) {
	dir := t.TempDir()
	notParquet := filepath.Join(dir, "x.parquet")
	if err := os.WriteFile(notParquet, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	events := filepath.Join(dir, "events.parquet")
	writeAll(t, events, 10, sampleEvents(3))
	for path, code := range map[string]string{
		filepath.Join(dir, "missing"): errcode.IONotFound,
		dir:                           errcode.IONotFound, // a folder without results.parquet
		notParquet:                    errcode.IO,
		events:                        errcode.IO,
	} {
		if _, err := ReadRun(path); !errcode.Is(err, code) {
			t.Errorf("ReadRun(%s) = %v, want code %s", path, err, code)
		}
	}
}

func TestScoreRowColumns(t *testing.T) {
	want := []column{
		{"run_id", "utf8", false}, {"case_id", "utf8", false}, {"epoch", "int32", false},
		{"session_id", "utf8", false}, {"scorer", "utf8", false}, {"scorer_type", "utf8", false},
		{"result", "utf8", false}, {"score", "float64", false}, {"reason", "utf8", false},
		{"attempt", "int32", false}, {"judge_model", "utf8", true}, {"judge_input_tokens", "int64", true},
		{"judge_output_tokens", "int64", true}, {"judge_latency_ms", "float64", true}, {"judge_samples", "int32", true},
		{"judge_spread", "float64", true}, {"judge_split", "bool", true}, {"variant", "utf8", true},
		{"judge_cost_usd", "float64", true},
	}
	path := filepath.Join(t.TempDir(), ScoresFile)
	rows := []ScoreRow{{RunID: "r", CaseID: "c", Epoch: 1, SessionID: "s", Scorer: "seq", ScorerType: "tool_sequence", Result: ResultFail, Score: 0.5, Reason: `observed=["a"]`, Attempt: 2}}
	writeAll(t, path, 10, rows)
	got := readParquet(t, path)
	if diff := cmp.Diff(want, got.Columns); diff != "" {
		t.Errorf("scores.parquet columns (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]any{{"r", "c", int32(1), "s", "seq", "tool_sequence", "fail", 0.5, `observed=["a"]`, int32(2), nil, nil, nil, nil, nil, nil, nil, nil, nil}}, got.Rows); diff != "" {
		t.Errorf("scores.parquet rows read by arrow (-want +got):\n%s", diff)
	}
}
