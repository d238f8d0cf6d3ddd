package view

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/reports"
)

func TestIndexGroupsAttempts(t *testing.T) {
	row := func(id string, epoch, attempt int32, status string) reports.ResultRow {
		return reports.ResultRow{RunID: "r", CaseID: id, Epoch: epoch, Attempt: attempt, Status: status}
	}
	r := index("/runs/r", &reports.RunData{Results: []reports.ResultRow{
		row("a", 2, 1, reports.StatusFailed),
		row("a", 1, 2, reports.StatusPassed),
		row("b", 1, 1, reports.StatusPassed),
		row("a", 1, 1, reports.StatusError),
	}})
	if diff := cmp.Diff([]string{"a", "b"}, r.cases); diff != "" {
		t.Errorf("cases (-want +got):\n%s", diff)
	}
	var got []string
	for _, i := range r.byCase["a"] {
		got = append(got, attemptAnchor(&r.rows[i]))
	}
	if diff := cmp.Diff([]string{"e1-a1", "e1-a2", "e2-a1"}, got); diff != "" {
		t.Errorf("a's sections (-want +got):\n%s", diff)
	}
	if f := r.finalRow(caseKey{"a", 1, ""}); f == nil || f.Attempt != 2 {
		t.Errorf("a's epoch 1 ends with %+v, want attempt 2", f)
	}
	base := index("/runs/base", &reports.RunData{Results: []reports.ResultRow{
		row("a", 1, 1, reports.StatusFailed), // flips to passed
		row("a", 2, 1, reports.StatusError),  // no verdict: no flip
		row("b", 1, 1, reports.StatusPassed),
	}})
	p, n := buildIndex(r, base)
	if n != 3 || !p.Data.Epochs || p.Flips != 1 {
		t.Errorf("index: %d rows, epochs %v, %d flips; want 3 rows, epochs, 1 flip", n, p.Data.Epochs, p.Flips)
	}
	var flips []string
	for _, ir := range p.Data.Rows {
		flips = append(flips, ir.F)
	}
	if diff := cmp.Diff([]string{"failed→passed", "", ""}, flips); diff != "" {
		t.Errorf("flips (-want +got):\n%s", diff)
	}
	if got, want := p.Data.Rows[0].H, "cases/a.html#e1-a2"; got != want {
		t.Errorf("a's link is %q, want %q", got, want)
	}
}
