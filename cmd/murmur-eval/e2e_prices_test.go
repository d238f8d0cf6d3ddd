package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
	"github.com/murmur-nexus/murmur-eval/inference/replay"
)

// The usage the priced mock reports on every turn, in Anthropic's terms:
// 400,000 uncached input tokens, 600,000 read from the prompt cache, 50,000
// output tokens. At the test's prices (3.00 input, 0.30 cached, 15.00
// output per million) a turn costs 1.20 + 0.18 + 0.75 = $2.13.
const (
	mockUncached, mockCached, mockOutput = 400_000, 600_000, 50_000
	turnUSD                              = 2.13
)

// usageRE is the usage object of an apitest Messages body.
var usageRE = regexp.MustCompile(`,"usage":\{[^}]*\}`)

// pricedAnthropic serves the quickstart's recordings as Anthropic answers
// (anthropicFromRecordings) with the usage above on every turn, and none
// at all on the turns of the case noUsage.
func pricedAnthropic(t *testing.T, dir, noUsage string) *apitest.Server {
	t.Helper()
	var mu sync.Mutex
	turns := map[string][]replay.Turn{}
	return anthropicFromRecordings(t, dir, func(caseID string, turn int) *apitest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if _, ok := turns[caseID]; !ok {
			path := recordingPath(filepath.Join(dir, "recordings"), caseID)
			data, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			if turns[caseID], err = replay.Parse(path, data); err != nil {
				return nil
			}
		}
		if turn >= len(turns[caseID]) {
			return nil
		}
		usage := `,"usage":{"input_tokens":400000,"cache_creation_input_tokens":0,"cache_read_input_tokens":600000,"output_tokens":50000}`
		if caseID == noUsage {
			usage = ""
		}
		return &apitest.Reply{Body: usageRE.ReplaceAllLiteralString(asAnthropic(turns[caseID][turn].Response), usage)}
	})
}

// costSummary is summary.json's cost_usd.
type costSummary struct {
	Total, Agent, Judge float64
	Currency            string
	PricesDate          string   `json:"prices_date"`
	PricedCases         int      `json:"priced_cases"`
	UnpricedModels      []string `json:"unpriced_models"`
	EstimatedCases      int      `json:"estimated_cases"`
}

func readCost(t *testing.T, out string) *costSummary {
	t.Helper()
	var sum struct {
		Cost *costSummary `json:"cost_usd"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(out, "summary.json"))), &sum); err != nil {
		t.Fatal(err)
	}
	return sum.Cost
}

// TestPricesCostToTheCent: the quickstart against a mock that reports a
// known usage on every turn, with a --prices file: each case's cost_usd in
// results.parquet (read back with arrow-go) is its turns × $2.13 to the
// cent, the sum of its events' cost_usd; the case whose answers carry no
// usage is priced from murmur's own counts and flagged cost_estimated;
// summary.json's cost_usd.total is the sum, with the file's date; a
// replay of the run's recordings costs the same.
func TestPricesCostToTheCent(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := quickstart(t)
	t.Parallel()
	srv := pricedAnthropic(t, dir, "direct-answer")
	useEndpoint(t, dir, srv.URL)
	prices := filepath.Join(t.TempDir(), "prices.yaml")
	writeFile(t, prices, "currency: USD\ndate: 2026-12-01\nmodels:\n  \"claude-sonnet-4-5*\": {input: 3.00, output: 15.00, cached_input: 0.30}\n")
	out, rec := filepath.Join(reachableTempDir(t), "run"), filepath.Join(t.TempDir(), "recordings")
	cases := someCases(t, dir)
	r := runBinary(t, dir, "--dataset", cases, "--out", out, "--workers", "4", "--driver", "builtin", "--prices", prices, "--record", rec)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	// The recordings keep the provider's usage, cached tokens included:
	// the replayed run costs what the live one did.
	replayed := filepath.Join(reachableTempDir(t), "replayed")
	if rr := runBinary(t, dir, "--dataset", cases, "--out", replayed, "--workers", "4", "--driver", "builtin", "--prices", prices, "--replay", rec); rr.code != 0 {
		t.Fatalf("replay: exit %d\nstderr:\n%s", rr.code, rr.stderr)
	}
	again := resultsByCase(t, replayed)
	for id, row := range resultsByCase(t, out) {
		if again[id]["cost_usd"] != row["cost_usd"] || again[id]["cost_estimated"] != row["cost_estimated"] {
			t.Errorf("%s: replayed cost_usd %v (estimated %v), live %v (%v)", id, again[id]["cost_usd"], again[id]["cost_estimated"], row["cost_usd"], row["cost_estimated"])
		}
	}
	eventCost := map[string]float64{}
	for _, ev := range readParquet(t, filepath.Join(out, "events.parquet")).Rows {
		if c, ok := ev["cost_usd"].(float64); ok {
			eventCost[ev["case_id"].(string)] += c
		} else if ev["event_type"] == "inference" && ev["case_id"] != "direct-answer" {
			t.Errorf("%s: an inference event without cost_usd: %v", ev["case_id"], ev["event_json"])
		}
	}
	var total float64
	for id, row := range resultsByCase(t, out) {
		turns := toInt(row["turns"])
		want := float64(turns) * turnUSD
		if id == "direct-answer" { // no usage: murmur's cl100k_base counts, flagged
			want = (float64(toInt(row["input_tokens"]))*3 + float64(toInt(row["output_tokens"]))*15) / 1e6
		} else if got := toInt(row["provider_input_tokens"]); turns > 0 && got != turns*(mockUncached+mockCached) {
			t.Errorf("%s: provider_input_tokens %d, want %d", id, got, turns*(mockUncached+mockCached))
		}
		got, priced := row["cost_usd"].(float64)
		switch {
		case turns == 0 && priced:
			t.Errorf("%s: no turn, cost_usd %v, want null", id, got)
		case turns > 0 && (!priced || math.Abs(got-want) >= 0.005):
			t.Errorf("%s: cost_usd %v, want %d turns priced: $%.4f", id, row["cost_usd"], turns, want)
		case turns > 0 && math.Abs(eventCost[id]-got) > 1e-9:
			t.Errorf("%s: events' cost_usd sum to %v, the case's is %v", id, eventCost[id], got)
		}
		if estimated := row["cost_estimated"] == true; estimated != (id == "direct-answer" && turns > 0) {
			t.Errorf("%s: cost_estimated %v", id, row["cost_estimated"])
		}
		total += want
	}
	if total < 2*turnUSD {
		t.Fatalf("the cases cost $%.2f in all: fewer turns than the dataset has", total)
	}
	c := readCost(t, out)
	if c == nil || math.Abs(c.Total-total) >= 0.005 || c.Judge != 0 || c.Currency != "USD" || c.PricesDate != "2026-12-01" ||
		len(c.UnpricedModels) != 0 || c.EstimatedCases != 1 {
		t.Errorf("summary.json cost_usd %+v, want total $%.2f, dated 2026-12-01, 1 case estimated", c, total)
	}
	t.Logf("summary.json cost_usd: %+v", c)
	d := runBinary(t, "diff", out, out, "--json")
	var diff struct {
		Cost *struct {
			Base   struct{ Total float64 }
			Change float64
		} `json:"cost"`
	}
	if err := json.Unmarshal([]byte(d.stdout), &diff); err != nil || diff.Cost == nil || math.Abs(diff.Cost.Base.Total-c.Total) > 1e-9 || diff.Cost.Change != 0 {
		t.Errorf("diff --json of the run with itself: cost %+v (%v), want base total %v, no change\n%s", diff.Cost, err, c.Total, d.stderr)
	}
	page := filepath.Join(t.TempDir(), "trend.html")
	if rep := runBinary(t, "report", "-o", page, out, replayed); rep.code != 0 {
		t.Errorf("report: exit %d\n%s", rep.code, rep.stderr)
	} else if html := readFile(t, page); !strings.Contains(html, `<th class="n">cost</th>`) || strings.Count(html, fmt.Sprintf(`<td class="n">$%.2f</td>`, c.Total)) != 2 {
		t.Errorf("the trend page's runs table has no cost column with each run's $%.2f", c.Total)
	}
	if !strings.Contains(r.stdout, "cost: $") || !strings.Contains(readFile(t, filepath.Join(out, "summary.md")), "Cost: $") {
		t.Errorf("no cost line in the terminal summary or summary.md:\n%s", r.stdout)
	}
}

// TestPricesUnpricedModel: a model neither the built-in table nor a file
// prices is said once on stderr, naming it and --prices; its cases' cost
// is null, never guessed, and summary.json names it.
func TestPricesUnpricedModel(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := quickstart(t)
	t.Parallel()
	srv := pricedAnthropic(t, dir, "")
	useEndpoint(t, dir, srv.URL)
	editFile(t, filepath.Join(dir, "murmur.yaml"), "model: claude-sonnet-4-5", "model: house-model-7")
	out := filepath.Join(reachableTempDir(t), "run")
	r := runBinary(t, dir, "--dataset", someCases(t, dir), "--out", out, "--workers", "4", "--driver", "builtin")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if n := strings.Count(r.stderr, `no price for model "house-model-7"`); n != 1 || !strings.Contains(r.stderr, "--prices") {
		t.Errorf("stderr says the unpriced model %d times, want once with --prices:\n%s", n, r.stderr)
	}
	for id, row := range resultsByCase(t, out) {
		if row["cost_usd"] != nil {
			t.Errorf("%s: cost_usd %v, want null", id, row["cost_usd"])
		}
	}
	if c := readCost(t, out); c == nil || c.Total != 0 || strings.Join(c.UnpricedModels, ",") != "house-model-7" {
		t.Errorf("summary.json cost_usd %+v, want no cost and house-model-7 unpriced", c)
	}
}

// TestPricesFileRefused: a bad --prices file stops the run before any case
// (exit 2) with E-EVL-008 at the file's line.
func TestPricesFileRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := quickstart(t)
	t.Parallel()
	prices := filepath.Join(t.TempDir(), "prices.yaml")
	writeFile(t, prices, "currency: USD\nmodels:\n  gpt-5: {input: 1.25, output: -10}\n")
	out := filepath.Join(reachableTempDir(t), "run")
	r := runBinary(t, dir, "--dataset", filepath.Join(dir, "cases.jsonl"), "--out", out, "--prices", prices)
	if r.code != exitUsage || !hasCode(r.stderr, errcode.Prices) || !strings.Contains(r.stderr, "prices.yaml:3:") {
		t.Errorf("exit %d, want %d with %s at prices.yaml:3\nstderr:\n%s", r.code, exitUsage, errcode.Prices, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "results.parquet")); err == nil {
		t.Error("a case ran")
	}
}

// someCases is a dataset of four of the quickstart's cases (tool calls, a
// direct answer, a failed model turn), so that the runs stay short.
func someCases(t *testing.T, dir string) string {
	t.Helper()
	var keep []string
	for _, l := range readLines(t, filepath.Join(dir, "cases.jsonl")) {
		for _, id := range []string{`"calc-multiply"`, `"calc-two-calls"`, `"direct-answer"`, `"model-error"`} {
			if strings.Contains(l, `"case_id": `+id) {
				keep = append(keep, l)
			}
		}
	}
	if len(keep) != 4 {
		t.Fatalf("%d of the 4 cases found", len(keep))
	}
	path := filepath.Join(dir, "some-cases.jsonl")
	writeFile(t, path, strings.Join(keep, "\n")+"\n")
	return path
}

// TestPricesJudgeCost: a judge's tokens are priced at the judge model's
// price from --prices (judge_cost_usd in scores.parquet, cost_usd.judge in
// the summary, apart from the agent's), and score prices its new judge
// requests too.
func TestPricesJudgeCost(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	j := newJudged(t)
	t.Parallel()
	prices := filepath.Join(t.TempDir(), "prices.yaml")
	writeFile(t, prices, "models:\n  judge-1: {input: 2.00, output: 8.00}\n")
	run := filepath.Join(reachableTempDir(t), "run")
	r, _ := runE2E(t, append([]string{j.qs, "--dataset", j.dataset, "--out", run, "--driver", "builtin", "--prices", prices}, j.flags...), j.env)
	if r.code != exitErrorBudget {
		t.Fatalf("run: exit %d, want %d (one judge error)\n%s", r.code, exitErrorBudget, r.stderr)
	}
	checkJudgeCost := func(out string) {
		t.Helper()
		var sum float64
		judged := 0
		for _, s := range readParquet(t, filepath.Join(out, "scores.parquet")).Rows {
			in, ok := s["judge_input_tokens"].(int64)
			if !ok {
				continue
			}
			judged++
			want := (float64(in)*2 + float64(s["judge_output_tokens"].(int64))*8) / 1e6
			if got, ok := s["judge_cost_usd"].(float64); !ok || math.Abs(got-want) > 1e-12 {
				t.Errorf("%s %s: judge_cost_usd %v, want %v", out, s["case_id"], s["judge_cost_usd"], want)
			}
			sum += want
		}
		c := readCost(t, out)
		if judged == 0 || c == nil || sum == 0 || math.Abs(c.Judge-sum) > 1e-9 || math.Abs(c.Total-c.Agent-c.Judge) > 1e-9 {
			t.Errorf("%s: %d judged scores, summary cost_usd %+v, want judge $%v apart from the agent", out, judged, c, sum)
		}
	}
	checkJudgeCost(run)
	rescored := filepath.Join(reachableTempDir(t), "rescored")
	s, _ := runE2E(t, append([]string{"score", run, "--out", rescored, "--prices", prices}, j.flags...), j.env, plainArgs())
	if s.code != exitErrorBudget {
		t.Fatalf("score: exit %d\n%s", s.code, s.stderr)
	}
	checkJudgeCost(rescored)
}
