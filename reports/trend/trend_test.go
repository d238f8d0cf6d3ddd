package trend

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"

	"github.com/murmur-nexus/murmur-eval/reports"
)

var night0 = time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)

// fakeRun makes a run in memory: statuses[i] is case i's status ("P", "F",
// "E", "T", "B" (over budget) or "" for not run), scored by one scorer
// "contains".
func fakeRun(night int, statuses []string) *Run {
	id := fmt.Sprintf("run_%02d", night)
	full := map[string]string{"P": reports.StatusPassed, "F": reports.StatusFailed, "E": reports.StatusError, "T": reports.StatusTimeout, "B": reports.StatusOverBudget}
	data := &reports.RunData{Path: id, Results: []reports.ResultRow{}}
	for i, s := range statuses {
		if s == "" {
			continue
		}
		ms := float64(10 * (i + 1))
		row := reports.ResultRow{RunID: id, CaseID: fmt.Sprintf("case-%d", i), Epoch: 1, Attempt: 1, Status: full[s],
			StartedAt: night0.Add(time.Duration(night)*24*time.Hour + time.Duration(i)*time.Second),
			LoopMS:    &ms, InputTokens: int64(100 * (i + 1)), OutputTokens: 10, CapsuleName: "c", CapsuleVersion: "1"}
		if s == "E" || s == "T" {
			code := map[string]string{"E": "E-EVL-011", "T": "E-EVL-020"}[s]
			row.ErrorCode = &code
		} else if s != "B" {
			data.Scores = append(data.Scores, reports.ScoreRow{RunID: id, CaseID: row.CaseID, Epoch: 1, Scorer: "contains",
				ScorerType: "result_contains", Result: map[bool]string{true: "pass", false: "fail"}[s == "P"], Attempt: 1})
		}
		data.Results = append(data.Results, row)
	}
	r := newRun(id, data)
	r.Index = night
	return r
}

// columns turns per-case histories ("PFP", "PPE") into per-run statuses.
func columns(histories ...string) [][]string {
	runs := make([][]string, len(histories[0]))
	for _, h := range histories {
		for i, c := range h {
			s := string(c)
			if s == "-" {
				s = ""
			}
			runs[i] = append(runs[i], s)
		}
	}
	return runs
}

func build(opt Options, histories ...string) *Report {
	var runs []*Run
	for i, statuses := range columns(histories...) {
		runs = append(runs, fakeRun(i+1, statuses))
	}
	return Build(runs, opt)
}

func kinds(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Kind)
	}
	return out
}

func TestFindings(t *testing.T) {
	opt := DefaultOptions()
	same := strings.Repeat("P", 5)
	tests := []struct {
		name      string
		histories []string
		kinds     []string
		contains  string
	}{
		{"one run, steady", []string{"P", "P", "F"}, []string{KindSteady}, "across 1 run;"},
		{"steady", []string{same, same, "FFFFF"}, []string{KindChange, KindSteady}, "unchanged at 66.7%"},
		{"regression of 8 cases", []string{"PPPPF", "PPPPF", "PPPPF", "PPPPF", "PPPPF", "PPPPF", "PPPPF", "PPPPF", "PPPPP"},
			[]string{KindRegression}, "dropped from 100.0% to 11.1% against run #4 (run_04, 2026-11-24 02:00 UTC) (p=0.0078, McNemar's exact test: 8 pass→fail, 0 fail→pass): a regression"},
		{"a small drop is not significant", []string{"PPPF", "PPPP", "PPPP"}, []string{KindChange, KindSteady}, "from 100.0% to 66.7% against run #3 (run_03, 2026-11-23 02:00 UTC) (p=1, McNemar's exact test: 1 pass→fail, 0 fail→pass): not significant at α=0.05"},
		{"improvement", []string{"FFFFFFP", "FFFFFFP", "FFFFFFP", "FFFFFFP", "FFFFFFP", "FFFFFFP", "FFFFFFP", "FFFFFFP"}, []string{KindImprovement, KindSteady}, "rose from 0.0% to 100.0%"},
		{"outage at the threshold", []string{"PEP", "PPP", "PPP", "PPP", "PPP"}, []string{KindChange, KindOutage}, "run #2 (run_02, 2026-11-22 02:00 UTC): harness outage, 20.0% error or timeout (1 of 5 cases; E-EVL-011 ×1)"},
		{"errors under the outage rate in the latest run", []string{"PPT", "PPP", "PPP", "PPP", "PPP", "PPP"}, []string{KindChange, KindErrors, KindSteady}, "1 of 6 cases (16.7%) in error or timeout (E-EVL-020 ×1)"},
		{"over budget is no outage", []string{"PPB", "PPB", "PPP", "PPP", "PPP"}, []string{KindChange, KindOverBudget, KindSteady}, "latest run #3 (run_03, 2026-11-23 02:00 UTC): 2 of 5 cases over budget"},
		{"an outage beside over budget counts the errors only", []string{"PPE", "PPB", "PPP", "PPP", "PPP"}, []string{KindChange, KindOutage, KindOverBudget}, "run #3 (run_03, 2026-11-23 02:00 UTC): harness outage, 20.0% error or timeout (1 of 5 cases; E-EVL-011 ×1)"},
		{"errors do not flip", []string{"PEPEP", "PPPPP"}, []string{KindChange, KindOutage, KindOutage}, ""},
		{"flaky", []string{"PFPFP", "PPPPP", "FPFFF"}, []string{KindChange, KindFlaky, KindFlaky}, "flaky: case-0 flipped 4 times in 5 runs (P F P F P)"},
		{"flaky across a gap", []string{"P-F", "PPP"}, []string{KindChange, KindSteady}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := build(opt, tt.histories...)
			if diff := cmp.Diff(tt.kinds, kinds(r.Findings)); diff != "" {
				t.Errorf("kinds (-want +got):\n%s\n%v", diff, r.Findings)
			}
			var all []string
			for _, f := range r.Findings {
				all = append(all, f.Text)
			}
			if !strings.Contains(strings.Join(all, "\n"), tt.contains) {
				t.Errorf("findings lack %q:\n%s", tt.contains, strings.Join(all, "\n"))
			}
		})
	}
}

func TestGridCountsVerdictFlipsOnly(t *testing.T) {
	r := build(DefaultOptions(), "PEFTP", "PPPPP", "P-F-P", "FFFFF")
	got := map[string]int{}
	for _, g := range r.Grid {
		got[g.Key.CaseID] = g.Flips
	}
	want := map[string]int{"case-0": 2, "case-1": 0, "case-2": 2, "case-3": 0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flips (-want +got):\n%s", diff)
	}
	if r.Grid[0].Key.CaseID != "case-0" || r.Grid[1].Key.CaseID != "case-2" {
		t.Errorf("grid order %v, want most flips first, then by id", r.Grid)
	}
	if diff := cmp.Diff([]string{"passed", "error", "failed", "timeout", "passed"}, r.Grid[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}

func TestTrendsHaveGapsWhereAScorerScoredNothing(t *testing.T) {
	r := build(DefaultOptions(), "PEP", "FEP")
	if len(r.Trends) != 2 || r.Trends[0].Scorer != reports.OverallScorer || r.Trends[1].Scorer != "contains" {
		t.Fatalf("trends %+v", r.Trends)
	}
	c := r.Trends[1].Rates
	if c[0].Total != 2 || c[0].Passed != 1 || c[1].Total != 0 || c[2].Passed != 2 {
		t.Errorf("contains rates %+v", c)
	}
	if got := segments(r.Trends[1]); !cmp.Equal(got, [][]int{{0}, {2}}) {
		t.Errorf("segments %v, want the gap at run 2", got)
	}
}

func TestQuantileInterpolatesBetweenRanks(t *testing.T) {
	v := []float64{1, 2, 3, 4, 10}
	for _, tt := range []struct{ q, want float64 }{{0, 1}, {0.25, 2}, {0.5, 3}, {0.9, 7.6}, {1, 10}} {
		if got := quantile(v, tt.q); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("quantile(%v) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if !math.IsNaN(quantile(nil, 0.5)) {
		t.Error("quantile of nothing is not NaN")
	}
	r := build(DefaultOptions(), "P", "P", "E")
	loop := r.Stages[5]
	if loop.Stage != "loop" || loop.N != 3 || loop.P50 != 20 || loop.Max != 30 || r.Stages[0].N != 0 {
		t.Errorf("stages %+v", r.Stages)
	}
	if r.Tokens[0].Key.CaseID != "case-2" || r.Tokens[0].Input != 300 {
		t.Errorf("tokens %+v, want the most first", r.Tokens)
	}
}

// TestLoad writes runs with the project's own sink, gives them out of
// order, and checks their order by start and that only a case's last
// attempt counts.
func TestLoad(t *testing.T) {
	root := t.TempDir()
	var paths []string
	for i, name := range []string{"c", "a", "b"} {
		dir := filepath.Join(root, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		start := night0.Add(time.Duration(i) * time.Hour)
		errCode := "E-EVL-011"
		rows := []reports.ResultRow{
			{RunID: "run_" + name, CaseID: "x", Epoch: 1, Attempt: 1, Status: reports.StatusError, ErrorCode: &errCode, StartedAt: start.Add(time.Minute)},
			{RunID: "run_" + name, CaseID: "x", Epoch: 1, Attempt: 2, Status: reports.StatusPassed, StartedAt: start.Add(2 * time.Minute)},
			{RunID: "run_" + name, CaseID: "y", Epoch: 1, Attempt: 1, Status: reports.StatusFailed, StartedAt: start},
		}
		writeResults(t, filepath.Join(dir, reports.ResultsFile), rows)
		paths = append(paths, dir)
	}
	runs, err := Load([]string{paths[2], paths[0], filepath.Join(paths[1], reports.ResultsFile)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, fmt.Sprintf("#%d %s %s %d %d", r.Index, r.RunID, r.Start.Format("15:04"), r.Digest.Cases, r.Digest.Statuses["passed"]))
	}
	want := []string{"#1 run_c 02:00 2 1", "#2 run_a 03:00 2 1", "#3 run_b 04:00 2 1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	if _, err := Load(nil); err == nil {
		t.Error("Load of no run: no error")
	}
	if _, err := Load([]string{filepath.Join(root, "missing")}); err == nil {
		t.Error("Load of a missing run: no error")
	}
}

func writeResults(t testing.TB, path string, rows []reports.ResultRow) {
	t.Helper()
	s, err := reports.NewSink[reports.ResultRow](path, reports.Layout{RowsPerGroup: 1000})
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan reports.ResultRow, len(rows))
	for _, r := range rows {
		ch <- r
	}
	close(ch)
	if err := s.Run(context.Background(), ch); err != nil {
		t.Fatal(err)
	}
}

// TestPageIsSelfContainedAndEscaped renders a report whose case id and
// path hold markup: the page must parse, carry it as text, and have no
// script, link or external reference.
func TestPageIsSelfContainedAndEscaped(t *testing.T) {
	r := build(DefaultOptions(), "PFPFP", "PPPPE")
	r.Grid[0].Key.CaseID = `<script>alert("x")</script>`
	r.Latest().Path = `runs/<img src=x onerror=alert(1)>`
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r, `night & day <b>`); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	var texts []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			counts[n.Data]++
			for _, a := range n.Attr {
				if a.Key == "src" || a.Key == "href" || strings.HasPrefix(a.Key, "on") {
					t.Errorf("<%s %s=%q>: the page must reference nothing and run nothing", n.Data, a.Key, a.Val)
				}
			}
		}
		if n.Type == html.TextNode {
			texts = append(texts, n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if counts["script"] != 0 || counts["link"] != 0 || counts["img"] != 0 || counts["svg"] != 4 {
		t.Errorf("elements %v: want no script, link or img, and 4 svg charts", counts)
	}
	all := strings.Join(texts, "\n")
	for _, s := range []string{`<script>alert("x")</script>`, `night & day <b>`, "flaky: case-0 flipped 4 times"} {
		if !strings.Contains(all, s) {
			t.Errorf("the page's text lacks %q", s)
		}
	}
}

// BenchmarkReport builds and renders a report over 30 runs of 500 cases
// (about what a month of nightly runs of a mid-sized dataset gives).
func BenchmarkReport(b *testing.B) {
	const nRuns, nCases = 30, 500
	var runs []*Run
	for n := 1; n <= nRuns; n++ {
		statuses := make([]string, nCases)
		for i := range statuses {
			statuses[i] = "P"
			if (i*7+n*3)%10 == 0 {
				statuses[i] = "F"
			}
		}
		runs = append(runs, fakeRun(n, statuses))
	}
	var size int
	for b.Loop() {
		var buf bytes.Buffer
		if err := WriteHTML(&buf, Build(runs, DefaultOptions()), ""); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(size), "page-bytes")
}

// BenchmarkLoadAndReport reads 30 runs of 500 cases back from Parquet
// (results and scores, written by the project's sinks), then builds and
// renders the report: what `murmur-eval report` does.
func BenchmarkLoadAndReport(b *testing.B) {
	const nRuns, nCases = 30, 500
	root := b.TempDir()
	var paths []string
	for n := 1; n <= nRuns; n++ {
		statuses := make([]string, nCases)
		for i := range statuses {
			statuses[i] = "P"
			if (i*7+n*3)%10 == 0 {
				statuses[i] = "F"
			}
		}
		r := fakeRun(n, statuses)
		dir := filepath.Join(root, r.RunID)
		if err := os.Mkdir(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		writeResults(b, filepath.Join(dir, reports.ResultsFile), r.Results)
		s, err := reports.NewSink[reports.ScoreRow](filepath.Join(dir, reports.ScoresFile), reports.Layout{RowsPerGroup: 1000})
		if err != nil {
			b.Fatal(err)
		}
		ch := make(chan reports.ScoreRow, len(r.Scores))
		for _, row := range r.Scores {
			ch <- row
		}
		close(ch)
		if err := s.Run(context.Background(), ch); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, dir)
	}
	for b.Loop() {
		runs, err := Load(paths)
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteHTML(&buf, Build(runs, DefaultOptions()), ""); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzPageEscapes renders pages whose case id, scorer, run id and path are
// arbitrary strings: the page must never gain an element or an attribute
// that runs or fetches something.
func FuzzPageEscapes(f *testing.F) {
	f.Add(`<script>x</script>`, `"><img src=x onerror=alert(1)>`, `</title><svg onload=alert(1)>`)
	f.Add("case\x00id", "a&b", `]]><!--`)
	f.Fuzz(func(t *testing.T, caseID, scorer, runID string) {
		r := build(DefaultOptions(), "PF", "PP")
		r.Grid[0].Key.CaseID = caseID
		r.Tokens[0].Key.CaseID = caseID
		r.Trends[1].Scorer = scorer
		r.Latest().RunID = runID
		r.Latest().Path = runID
		r.Findings = append(r.Findings, Finding{Kind: scorer, Text: caseID})
		var buf bytes.Buffer
		if err := WriteHTML(&buf, r, caseID); err != nil {
			t.Fatal(err)
		}
		doc, err := html.Parse(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		var walk func(*html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.ElementNode {
				switch n.Data {
				case "script", "img", "iframe", "link", "object", "embed", "base", "meta":
					if n.Data != "meta" || len(n.Attr) == 0 || (n.Attr[0].Key != "charset" && n.Attr[0].Key != "name") {
						t.Fatalf("the page has a <%s> element", n.Data)
					}
				}
				for _, a := range n.Attr {
					if a.Key == "src" || a.Key == "href" || strings.HasPrefix(a.Key, "on") {
						t.Fatalf("<%s %s=%q>", n.Data, a.Key, a.Val)
					}
				}
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(doc)
	})
}
