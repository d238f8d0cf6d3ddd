package main

import (
	"context"
	"errors"
	"iter"
	"slices"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/pricing"
	"github.com/murmur-nexus/murmur-eval/reports"
)

func jobIDs(n int) iter.Seq[pipeline.Job] {
	return func(yield func(pipeline.Job) bool) {
		for i := range n {
			if !yield(pipeline.Job{ID: string(rune('a' + i))}) {
				return
			}
		}
	}
}

// TestCostLimitJobs: the jobs stop at the first one asked for once the
// spending reached the limit, and the run's end says so only then.
func TestCostLimitJobs(t *testing.T) {
	tests := []struct {
		name    string
		max     float64
		perJob  float64 // charged as each job "runs"
		want    []string
		stopped bool
	}{
		{"no limit", 0, 1, []string{"a", "b", "c", "d"}, false},
		{"reached after two", 2, 1, []string{"a", "b"}, true},
		{"reached with the last", 4, 1, []string{"a", "b", "c", "d"}, false},
		{"under the limit", 100, 1, []string{"a", "b", "c", "d"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCostLimit(tt.max)
			var got []string
			for j := range c.jobs(jobIDs(4)) {
				got = append(got, j.ID)
				if c != nil {
					c.charge(tt.perJob)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("jobs started %v, want %v", got, tt.want)
			}
			if err := c.end(nil); errors.Is(err, errBudgetStopped) != tt.stopped {
				t.Errorf("end = %v, want stopped %v", err, tt.stopped)
			}
		})
	}
	interrupted := errors.New("interrupted")
	c := newCostLimit(1)
	c.charge(1)
	for range c.jobs(jobIDs(2)) {
	}
	if err := c.end(interrupted); err != interrupted {
		t.Errorf("end of an interrupted run = %v, want the interrupt", err)
	}
}

// TestChargeRecords: a resumed run's journaled cases count toward
// --max-cost: every attempt's cost_usd (its tokens priced when it has
// none) and the judge's.
func TestChargeRecords(t *testing.T) {
	usd := func(f float64) *float64 { return &f }
	in, out := int64(1_000_000), int64(100_000)
	records := []journal.Record{
		{Attempts: []journal.Attempt{
			{Result: reports.ResultRow{CostUSD: usd(0.5)}},
			{Result: reports.ResultRow{CostUSD: usd(0.25)}, Scores: []reports.ScoreRow{{JudgeCostUSD: usd(0.125)}, {}}},
		}},
		// journaled before cost_usd: $3 + $1.5 at the built-in price
		{Attempts: []journal.Attempt{{Result: reports.ResultRow{Model: modelName("claude-sonnet-4-5"), ProviderInputTokens: &in, ProviderOutputTokens: &out}}}},
		{Attempts: []journal.Attempt{{Result: reports.ResultRow{Model: modelName("unpriced-model"), InputTokens: in}}}},
	}
	c := newCostLimit(100)
	c.chargeRecords(records, pricing.Builtin())
	if got, want := c.Spent(), 0.5+0.25+0.125+3+1.5; got != want {
		t.Errorf("spent %v, want %v", got, want)
	}
}

// modelName is a row's model column.
func modelName(s string) *string { return &s }

// fakeJudge answers every request with usage.
type fakeJudge struct{ usage *inference.Usage }

func (f fakeJudge) ForCase(context.Context, inference.Case) (inference.Provider, error) {
	return f, nil
}

func (f fakeJudge) Complete(context.Context, *inference.Request, inference.Observer) (*inference.Response, error) {
	return &inference.Response{StopReason: inference.StopEndTurn, Usage: f.usage}, nil
}

// TestJudgeCharged: a priced judge's answers are charged to --max-cost as
// they come; an unpriced judge, or one without a limit, is left as it is.
func TestJudgeCharged(t *testing.T) {
	src := fakeJudge{usage: &inference.Usage{InputTokens: 1_000_000, OutputTokens: 100_000}}
	c := newCostLimit(100)
	judged := c.judgeSource(src, "claude-sonnet-4-5", pricing.Builtin())
	p, err := judged.ForCase(context.Background(), inference.Case{ID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := p.Complete(context.Background(), &inference.Request{}, inference.NopObserver{}); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := c.Spent(), 2*(3+1.5); got != want {
		t.Errorf("spent %v, want %v (two answers at $3/M in, $15/M out)", got, want)
	}
	if got := c.judgeSource(src, "house-judge", pricing.Builtin()); got != inference.Source(src) {
		t.Errorf("an unpriced judge's source was wrapped: %T", got)
	}
	var none *costLimit
	if got := none.judgeSource(src, "claude-sonnet-4-5", pricing.Builtin()); got != inference.Source(src) {
		t.Errorf("a run without --max-cost wrapped the judge: %T", got)
	}
}
