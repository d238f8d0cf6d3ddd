package view

import (
	"encoding/json"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/reports"
)

func ptr[T any](v T) *T { return &v }

// TestCostSite: the index's rows carry each case's cost (exact, estimated
// or none), its header line the run's total beside the baseline's, and a
// case page the attempt's cost and the judge's beside its score.
func TestCostSite(t *testing.T) {
	hostileModel := "<b>m</b>\u202e"
	run := []genCase{
		{id: "priced", answer: "42", toolOutput: "42", passed: true, model: "m", cost: ptr(0.012345), judgeModel: "j", judgeCost: ptr(0.0004)},
		{id: "estimated", answer: "42", toolOutput: "42", passed: true, model: "m", cost: ptr(1.5), estimated: true},
		{id: "unpriced", answer: "41", toolOutput: "41", model: hostileModel, judgeModel: "j"},
	}
	base := []genCase{{id: "priced", answer: "42", toolOutput: "42", passed: true, model: "m", cost: ptr(0.02)}}
	out, _ := writeSite(t, run, base)
	index := readPage(t, filepath.Join(out, "index.html"))
	checkIndexScript(t, index)

	m := regexp.MustCompile(`(?s)<script type="application/json" id="rows">(.*?)</script>`).FindStringSubmatch(index)
	if m == nil {
		t.Fatal("the index has no data block")
	}
	var data struct {
		Rows []struct {
			ID    string
			C, Ce *float64
		}
	}
	if err := json.Unmarshal([]byte(m[1]), &data); err != nil {
		t.Fatal(err)
	}
	got := map[string][2]*float64{}
	for _, r := range data.Rows {
		got[r.ID] = [2]*float64{r.C, r.Ce}
	}
	want := map[string][2]*float64{"priced": {ptr(0.0123), nil}, "estimated": {nil, ptr(1.5)}, "unpriced": {nil, nil}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the rows' costs (-want +got):\n%s", diff)
	}
	// 0.012345 + 1.5 + the judge's 0.0004; the unpriced model named, cleaned and escaped.
	wantHeader := `<span id="cost">cost $1.51 (1 case estimated from murmur&#39;s token counts; no price for &lt;b&gt;m&lt;/b&gt;⟨U&#43;202E⟩, j); baseline $0.0200</span>`
	if !strings.Contains(index, wantHeader) {
		t.Errorf("the index's header lacks %s:\n%s", wantHeader, index[:min(len(index), 2000)])
	}
	if !strings.Contains(index, `data-key="c"`) {
		t.Error("the index has no cost column to sort by")
	}

	for id, wants := range map[string][]string{
		"priced":    {"<th>cost (USD)</th><td>$0.0123</td>", `<th class="n">judge cost</th>`, `<td class="n">` + reports.Dollars(0.0004) + `</td>`},
		"estimated": {"<th>cost (USD)</th><td>$1.50, estimated from murmur&#39;s token counts (the provider reported no usage)</td>"},
		"unpriced":  {"<th>cost (USD)</th><td>— (no turn priced", `<td class="n">— (no price)</td>`},
	} {
		page := readPage(t, filepath.Join(out, "cases", id+".html"))
		for _, w := range wants {
			if !strings.Contains(page, w) {
				t.Errorf("the page of %s lacks %s", id, w)
			}
		}
		if id == "estimated" && strings.Contains(page, "judge cost") {
			t.Errorf("the page of %s, which has no judge, has a judge cost column", id)
		}
	}
}

// TestCostAsSummary: the index's total is summary.json's cost_usd total,
// retried attempts and the judge included, each case counted once: a's
// error attempt $0.25 and its last $0.50 (estimated) with the judge's
// $0.125, b's judge $0.0625 (its own turns unpriced, model x).
func TestCostAsSummary(t *testing.T) {
	data := &reports.RunData{
		Results: []reports.ResultRow{
			{RunID: "r", CaseID: "a", Epoch: 1, Attempt: 1, Status: reports.StatusError, Turns: 1, Model: ptr("m"), CostUSD: ptr(0.25)},
			{RunID: "r", CaseID: "a", Epoch: 1, Attempt: 2, Status: reports.StatusPassed, Turns: 2, Model: ptr("m"), CostUSD: ptr(0.5), CostEstimated: true},
			{RunID: "r", CaseID: "b", Epoch: 1, Attempt: 1, Status: reports.StatusFailed, Turns: 2, Model: ptr("x")},
		},
		Scores: []reports.ScoreRow{
			{RunID: "r", CaseID: "a", Epoch: 1, Attempt: 2, Scorer: "j", Result: reports.ResultPass, JudgeModel: ptr("j"), JudgeCostUSD: ptr(0.125)},
			{RunID: "r", CaseID: "b", Epoch: 1, Attempt: 1, Scorer: "j", Result: reports.ResultFail, JudgeModel: ptr("j"), JudgeCostUSD: ptr(0.0625)},
		},
	}
	if got, want := costLine(index("/runs/r", data), nil), "$0.9375 (1 case estimated from murmur's token counts; no price for x)"; got != want {
		t.Errorf("costLine = %q, want %q", got, want)
	}
	if c := data.Cost(); c == nil || math.Abs(c.Total-0.9375) > 1e-12 || c.PricedCases != 2 {
		t.Errorf("the run's cost %+v, want $0.9375 over 2 priced cases", c)
	}
}

func TestCostLine(t *testing.T) {
	priced := &reports.RunData{Results: []reports.ResultRow{{RunID: "r", CaseID: "a", Epoch: 1, Attempt: 1, Turns: 1, Model: ptr("m"), CostUSD: ptr(0.0123)}}}
	none := &reports.RunData{Results: []reports.ResultRow{{RunID: "r", CaseID: "a", Epoch: 1, Attempt: 1, Turns: 1, Model: ptr("m")}}}
	tests := []struct {
		name      string
		run, base *reports.RunData
		want      string
	}{
		{"priced", priced, nil, "$0.0123"},
		{"no cost", none, nil, ""},
		{"both priced", priced, priced, "$0.0123; baseline $0.0123"},
		{"baseline without", priced, none, "$0.0123; baseline none"},
		{"run without", none, priced, "none; baseline $0.0123"},
		{"neither", none, none, ""},
	}
	for _, tt := range tests {
		var base *run
		if tt.base != nil {
			base = index("/b", tt.base)
		}
		if got := costLine(index("/r", tt.run), base); got != tt.want {
			t.Errorf("%s: costLine = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestIndexCost(t *testing.T) {
	tests := []struct {
		cost       *float64
		estimated  bool
		exact, est *float64
	}{
		{nil, false, nil, nil},
		{ptr(0.012345), false, ptr(0.0123), nil},
		{ptr(0.00004321), false, ptr(0.000043), nil},
		{ptr(0.0), false, ptr(0.0), nil},
		{ptr(12.3456), false, ptr(12.35), nil},
		{ptr(0.5), true, nil, ptr(0.5)},
	}
	for _, tt := range tests {
		exact, est := indexCost(&reports.ResultRow{CostUSD: tt.cost, CostEstimated: tt.estimated})
		if diff := cmp.Diff([2]*float64{tt.exact, tt.est}, [2]*float64{exact, est}); diff != "" {
			t.Errorf("indexCost(%v, %v) (-want +got):\n%s", tt.cost, tt.estimated, diff)
		}
	}
}
