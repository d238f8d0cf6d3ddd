// Package docs holds the test that runs the SQL of dashboards.md against
// run folders written by the real murmur-eval binary, so the documented
// queries and the Parquet files cannot drift apart.
package docs

import (
	"cmp"
	"database/sql"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/murmur-nexus/murmur-eval/reports"
)

// panels reads the ```sql blocks of dashboards.md, each named by its first
// line, "-- panel: NAME".
func panels(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile("dashboards.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	blocks := regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(string(data), -1)
	name := regexp.MustCompile(`^-- panel: (\w+)\n`)
	for _, b := range blocks {
		m := name.FindStringSubmatch(b[1])
		if m == nil {
			t.Fatalf("dashboards.md: an sql block does not start with -- panel: NAME:\n%s", b[1])
		}
		if _, dup := out[m[1]]; dup {
			t.Fatalf("dashboards.md: panel %s twice", m[1])
		}
		out[m[1]] = b[1]
	}
	return out
}

// TestDashboardQueries runs two nights of the quickstart through the real
// binary (the second with calc-retry answering wrongly and direct-answer's
// recording emptied, a harness error), then every query of dashboards.md
// over runs/*, and checks its figures against the runs read back in Go.
func TestDashboardQueries(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test: skipped under -short")
	}
	queries := panels(t)
	want := []string{"error_budget", "flaky_cases", "latest_flips", "pass_rate_trend", "scorer_trend", "stage_latency", "token_cost"}
	if got := slices.Sorted(maps.Keys(queries)); !slices.Equal(got, want) {
		t.Fatalf("dashboards.md panels %v, want %v", got, want)
	}
	work := t.TempDir()
	// The quickstart's check runs as the unprivileged tool user when the
	// tests run as root: it must reach the run folder (docs/expected.md).
	for _, d := range []string{filepath.Dir(work), work} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := buildQuickstart(t, work)
	qs := filepath.Join(work, "quickstart")
	rec2 := filepath.Join(work, "recordings-2")
	copyTree(t, filepath.Join(qs, "recordings"), rec2)
	writeFile(t, filepath.Join(rec2, "calc-retry.jsonl"),
		`{"stop_reason": "end_turn", "content": [{"type": "text", "text": "I do not know."}], "usage": {"input_tokens": 30, "output_tokens": 6}}`+"\n")
	writeFile(t, filepath.Join(rec2, "direct-answer.jsonl"), "")
	runs := filepath.Join(work, "runs")
	for i, rec := range []string{filepath.Join(qs, "recordings"), rec2} {
		out := filepath.Join(runs, fmt.Sprintf("night-%d", i+1))
		run(t, work, bin, qs, "--dataset", filepath.Join(qs, "cases.jsonl"), "--replay", rec, "--out", out,
			"--workers", "2", "--max-error-rate", "1", "--cache-dir", filepath.Join(work, "cache"))
		// No pause between the runs: the second starts after the first
		// exited, so its cases' started_at (the queries' run order) is
		// later by at least the first run's length.
	}
	night := []*reports.RunData{readRun(t, filepath.Join(runs, "night-1")), readRun(t, filepath.Join(runs, "night-2"))}

	t.Chdir(work) // the queries read runs/* relative to the working folder
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := func(name string) []map[string]any { return query(t, db, name, queries[name]) }

	t.Run("pass_rate_trend", func(t *testing.T) {
		rows := q("pass_rate_trend")
		wantCounts := [][3]int{{10, 12, 12}, {8, 11, 12}}
		if len(rows) != 2 {
			t.Fatalf("%d rows, want 2: %v", len(rows), rows)
		}
		for i, r := range rows {
			c := wantCounts[i]
			rate := reports.NewRate(c[0], c[1])
			if num(r["passed"]) != float64(c[0]) || num(r["scored"]) != float64(c[1]) || num(r["cases"]) != float64(c[2]) ||
				!near(num(r["pass_rate"]), rate.Rate) || !near(num(r["ci95_low"]), rate.Low) || !near(num(r["ci95_high"]), rate.High) ||
				!near(num(r["pass_rate_all"]), float64(c[0])/float64(c[2])) {
				t.Errorf("row %d: %v, want %v of %v scored of %v, Wilson %+v", i, r, c[0], c[1], c[2], rate)
			}
			if f := fmt.Sprint(r["file"]); !strings.HasSuffix(f, fmt.Sprintf("night-%d/results.parquet", i+1)) {
				t.Errorf("row %d: file %s, want night-%d's (runs in start order)", i, f, i+1)
			}
			if r["run_id"] != night[i].Results[0].RunID {
				t.Errorf("row %d: run_id %v, want %s", i, r["run_id"], night[i].Results[0].RunID)
			}
		}
	})
	t.Run("scorer_trend", func(t *testing.T) {
		var wantRows []string
		for _, n := range night {
			d := n.Summary().Digest(0)
			for _, s := range d.Scorers {
				wantRows = append(wantRows, fmt.Sprintf("%s %s %d/%d", s.Name, d.RunID, s.Passed, s.Total))
			}
		}
		var got []string
		for _, r := range q("scorer_trend") {
			got = append(got, fmt.Sprintf("%s %s %d/%d", r["scorer"], r["run_id"], int(num(r["passed"])), int(num(r["scored"]))))
			if !near(num(r["pass_rate"]), num(r["passed"])/num(r["scored"])) {
				t.Errorf("pass_rate of %v", r)
			}
		}
		slices.Sort(got)
		slices.Sort(wantRows)
		if !slices.Equal(got, wantRows) {
			t.Errorf("scorer rows:\n%s\nwant (summary):\n%s", strings.Join(got, "\n"), strings.Join(wantRows, "\n"))
		}
	})
	t.Run("flaky_cases", func(t *testing.T) {
		rows := q("flaky_cases")
		if len(rows) != 1 || rows[0]["case_id"] != "calc-retry" || num(rows[0]["flips"]) != 1 ||
			num(rows[0]["scored_runs"]) != 2 || rows[0]["history"] != "PF" {
			t.Errorf("flaky cases %v, want calc-retry flipping once (PF)", rows)
		}
	})
	t.Run("latest_flips", func(t *testing.T) {
		rows := q("latest_flips")
		d := reports.Diff(night[0], night[1], reports.DiffOptions{Alpha: 0.05}).Scorers[0]
		if len(rows) != 1 || num(rows[0]["pass_to_fail"]) != float64(len(d.PassToFail)) ||
			num(rows[0]["fail_to_pass"]) != float64(len(d.FailToPass)) || num(rows[0]["paired"]) != float64(d.Paired) ||
			rows[0]["regressed"] != "calc-retry" || d.Paired != 11 {
			t.Errorf("latest flips %v; diff says %d pass→fail, %d fail→pass, %d paired", rows, len(d.PassToFail), len(d.FailToPass), d.Paired)
		}
	})
	t.Run("error_budget", func(t *testing.T) {
		rows := q("error_budget")
		if len(rows) != 2 || num(rows[0]["unscored"]) != 0 || rows[0]["error_codes"] != "" ||
			num(rows[1]["unscored"]) != 1 || !near(num(rows[1]["error_rate"]), 1.0/12) || rows[1]["error_codes"] != "E-EVL-011" {
			t.Errorf("error budget %v, want night 2 with 1 of 12 in E-EVL-011", rows)
		}
	})
	t.Run("stage_latency", func(t *testing.T) {
		rows := q("stage_latency")
		var want []stageQ
		for _, n := range night {
			want = append(want, stageQuantiles(n.Results)...)
		}
		var got []stageQ
		for _, r := range rows {
			got = append(got, stageQ{run: fmt.Sprint(r["run_id"]), stage: fmt.Sprint(r["stage"]), n: int(num(r["cases"])),
				ms: [4]float64{num(r["p50_ms"]), num(r["p90_ms"]), num(r["p99_ms"]), num(r["max_ms"])}})
		}
		// DuckDB interpolates in its own arithmetic: agree to 1e-6.
		same := slices.EqualFunc(got, want, func(a, b stageQ) bool {
			if a.run != b.run || a.stage != b.stage || a.n != b.n {
				return false
			}
			for i := range a.ms {
				if math.Abs(a.ms[i]-b.ms[i]) > 1e-6*math.Max(1, math.Abs(b.ms[i])) {
					return false
				}
			}
			return true
		})
		if !same {
			t.Errorf("stage latency:\n%v\nwant:\n%v", got, want)
		}
	})
	t.Run("token_cost", func(t *testing.T) {
		rows := q("token_cost")
		if len(rows) != 2 {
			t.Fatalf("%d rows, want 2: %v", len(rows), rows)
		}
		for i, r := range rows {
			tot := night[i].Summary().Digest(0).Totals
			in, out := float64(tot.InputTokens), float64(tot.OutputTokens)
			// billed: the provider's usage where an attempt has it, else murmur's count
			var billedIn, billedOut, withUsage float64
			for _, row := range night[i].Results {
				billedIn += float64(*cmp.Or(row.ProviderInputTokens, &row.InputTokens))
				billedOut += float64(*cmp.Or(row.ProviderOutputTokens, &row.OutputTokens))
				if row.ProviderInputTokens != nil {
					withUsage++
				}
			}
			if in == 0 || num(r["input_tokens"]) != in || num(r["output_tokens"]) != out || num(r["attempts"]) != 12 ||
				!near(num(r["tokens_per_case"]), (in+out)/12) || r["model"] != "claude-sonnet-4-5" {
				t.Errorf("row %d: %v, want %v input and %v output tokens over 12 cases", i, r, in, out)
			}
			if withUsage == 0 || billedIn == in || num(r["billed_input_tokens"]) != billedIn || num(r["billed_output_tokens"]) != billedOut ||
				!near(num(r["cost_usd"]), billedIn*3/1e6+billedOut*15/1e6) {
				t.Errorf("row %d: %v, want %v billed input and %v billed output tokens (%v attempts with provider usage) priced",
					i, r, billedIn, billedOut, withUsage)
			}
		}
	})
}

// stageQuantiles formats each stage's quantiles as the stage_latency panel
// should find them: quantile_cont is linear interpolation between ranks.
// stageQ is one stage's row of the stage_latency panel: its run, its
// case count and its p50, p90, p99 and max in milliseconds.
type stageQ struct {
	run, stage string
	n          int
	ms         [4]float64
}

func (s stageQ) String() string {
	return fmt.Sprintf("%s %s n=%d p50=%g p90=%g p99=%g max=%g\n", s.run, s.stage, s.n, s.ms[0], s.ms[1], s.ms[2], s.ms[3])
}

func stageQuantiles(rows []reports.ResultRow) []stageQ {
	names := []string{"resolve", "verify", "stage", "contain", "launch", "loop", "report"}
	vals := make([][]float64, len(names))
	for _, r := range rows {
		for i, v := range []*float64{r.ResolveMS, r.VerifyMS, r.StageMS, r.ContainMS, r.LaunchMS, r.LoopMS, r.ReportMS} {
			if v != nil {
				vals[i] = append(vals[i], *v)
			}
		}
	}
	q := func(s []float64, p float64) float64 {
		pos := p * float64(len(s)-1)
		lo := int(math.Floor(pos))
		hi := min(lo+1, len(s)-1)
		return s[lo] + (pos-float64(lo))*(s[hi]-s[lo])
	}
	var out []stageQ
	for i, v := range vals {
		if len(v) == 0 {
			continue
		}
		slices.Sort(v)
		out = append(out, stageQ{run: rows[0].RunID, stage: names[i], n: len(v),
			ms: [4]float64{q(v, 0.5), q(v, 0.9), q(v, 0.99), v[len(v)-1]}})
	}
	return out
}

func query(t *testing.T, db *sql.DB, name, text string) []map[string]any {
	t.Helper()
	rows, err := db.Query(text)
	if err != nil {
		t.Fatalf("panel %s: %v\n%s", name, err, text)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("panel %s: %v", name, err)
		}
		m := map[string]any{}
		for i, c := range cols {
			m[c] = vals[i]
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("panel %s: %v", name, err)
	}
	return out
}

// num converts what DuckDB returns for a number to float64; NaN otherwise.
func num(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case int32:
		return float64(x)
	case uint64:
		return float64(x)
	case float64:
		return x
	case *big.Int:
		f, _ := new(big.Float).SetInt(x).Float64()
		return f
	}
	return math.NaN()
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func readRun(t *testing.T, dir string) *reports.RunData {
	t.Helper()
	r, err := reports.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// buildQuickstart builds murmur-eval and the quickstart's WASM tools into
// work, copies examples/quickstart to work/quickstart with the tools packed
// into its project store (as `make quickstart` does), and returns the
// binary.
func buildQuickstart(t *testing.T, work string) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(work, "murmur-eval")
	goBuild(t, root, nil, "-o", bin, "./cmd/murmur-eval")
	qs := filepath.Join(work, "quickstart")
	copyTree(t, filepath.Join(root, "examples", "quickstart"), qs)
	for _, tool := range []string{"calc", "notes"} {
		dir := filepath.Join(qs, "tools", tool)
		goBuild(t, root, []string{"GOOS=wasip1", "GOARCH=wasm"}, "-o", filepath.Join(dir, tool+".wasm"), "./examples/quickstart/tools/"+tool)
		run(t, work, bin, "pack", dir, "--store", filepath.Join(qs, ".murmur", "artifacts"))
	}
	return bin
}

func goBuild(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// run runs murmur-eval in dir with HOME there (no global artifact store)
// and fails the test unless it exits 0.
func run(t *testing.T, dir, bin string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("murmur-eval %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// copyTree copies a folder, leaving out what `make quickstart` generates
// (the project store, the lock, built .wasm files).
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		switch {
		case rel == ".murmur" || rel == "murmur.lock" || strings.HasSuffix(p, ".wasm"):
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		case d.IsDir():
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s: %v", from, err)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
