package main

import (
	"testing"

	"github.com/murmur-nexus/murmur-eval/reports"
)

func TestAttemptHeaderCost(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	row := func(cost *float64, estimated bool) reports.ResultRow {
		return reports.ResultRow{CaseID: "c", Epoch: 1, Attempt: 1, Status: reports.StatusPassed, Turns: 2,
			InputTokens: 400, OutputTokens: 50, DurationMS: 812, CostUSD: cost, CostEstimated: estimated}
	}
	const head = "case c · epoch 1 · attempt 1 · passed · 2 turns · 400 in / 50 out tokens"
	tests := []struct {
		name  string
		row   reports.ResultRow
		judge *float64
		want  string
	}{
		{"priced", row(f(0.0123), false), nil, head + " · cost $0.0123 · 812 ms"},
		{"estimated", row(f(1.5), true), nil, head + " · cost $1.50 (estimated) · 812 ms"},
		{"with a judge", row(f(0.0123), false), f(0.05), head + " · cost $0.0123, judge cost $0.0500 · 812 ms"},
		{"judge only", row(nil, false), f(0.05), head + " · judge cost $0.0500 · 812 ms"},
		{"no cost", row(nil, false), nil, head + " · 812 ms"},
	}
	for _, tt := range tests {
		if got := attemptHeader(tt.row, tt.judge); got != tt.want {
			t.Errorf("%s: attemptHeader = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestJudgeCostOf(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	r := reports.ResultRow{CaseID: "c", Epoch: 1, Attempt: 2}
	scores := []reports.ScoreRow{
		{CaseID: "c", Epoch: 1, Attempt: 2, JudgeCostUSD: f(0.25)},
		{CaseID: "c", Epoch: 1, Attempt: 2, JudgeCostUSD: f(0.5)},
		{CaseID: "c", Epoch: 1, Attempt: 2}, // a builtin scorer
		{CaseID: "c", Epoch: 1, Attempt: 1, JudgeCostUSD: f(1)},
		{CaseID: "c", Epoch: 2, Attempt: 2, JudgeCostUSD: f(1)},
		{CaseID: "d", Epoch: 1, Attempt: 2, JudgeCostUSD: f(1)},
	}
	if got := judgeCostOf(r, scores); got == nil || *got != 0.75 {
		t.Errorf("judgeCostOf = %v, want 0.75", got)
	}
	if got := judgeCostOf(r, scores[2:4]); got != nil {
		t.Errorf("judgeCostOf without a priced judge score = %v, want nil", *got)
	}
}
