package main

import (
	"math"
	"slices"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pricing"
)

// TestBudgetFlags: the flags and their environment defaults, the
// refusals, and what goes into the fingerprint and the resume command
// (the case limits; never --max-cost).
func TestBudgetFlags(t *testing.T) {
	tests := []struct {
		name        string
		args        []string
		env         map[string]string
		want        budgetOptions
		code        string // of validate's error
		fingerprint string
		resume      []string
	}{
		{name: "none"},
		{name: "flags", args: []string{"--max-cost", "2.5", "--case-max-tokens", "40000", "--case-max-cost", "0.1"},
			want: budgetOptions{maxCost: 2.5, caseMaxTokens: 40000, caseMaxCost: 0.1}, fingerprint: "tokens=40000 cost=0.1",
			resume: []string{"--case-max-tokens", "40000", "--case-max-cost", "0.1"}},
		{name: "environment", env: map[string]string{"MURMUR_EVAL_MAX_COST": "3", "MURMUR_EVAL_CASE_MAX_TOKENS": "500"},
			want: budgetOptions{maxCost: 3, caseMaxTokens: 500}, fingerprint: "tokens=500 cost=0", resume: []string{"--case-max-tokens", "500"}},
		{name: "max-cost alone", args: []string{"--max-cost", "1"}, want: budgetOptions{maxCost: 1}},
		{name: "not a number", args: []string{"--max-cost", "NaN"}, want: budgetOptions{maxCost: math.NaN()}, code: errcode.Usage},
		{name: "infinite", args: []string{"--case-max-cost", "+Inf"}, want: budgetOptions{caseMaxCost: math.Inf(1)}, code: errcode.Usage,
			fingerprint: "tokens=0 cost=+Inf", resume: []string{"--case-max-cost", "+Inf"}},
		{name: "negative", args: []string{"--case-max-tokens", "-1"}, want: budgetOptions{caseMaxTokens: -1}, code: errcode.Usage,
			fingerprint: "tokens=-1 cost=0", resume: []string{"--case-max-tokens", "-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var o options
			fs, envErrs := newRunFlags(&o, tt.env, nil)
			if err := fs.Parse(tt.args); err != nil || len(envErrs) > 0 {
				t.Fatal(err, envErrs)
			}
			if !sameBudget(o.budget, tt.want) {
				t.Errorf("options %+v, want %+v", o.budget, tt.want)
			}
			if got := errcode.Code(o.budget.validate()); got != tt.code {
				t.Errorf("validate: code %q, want %q", got, tt.code)
			}
			if got := o.budget.fingerprint(); got != tt.fingerprint {
				t.Errorf("fingerprint %q, want %q", got, tt.fingerprint)
			}
			if got := o.budget.args(); !slices.Equal(got, tt.resume) {
				t.Errorf("resume args %q, want %q", got, tt.resume)
			}
		})
	}
}

// TestBudgetNeedsPrices: a cost limit on a model without a price is a
// usage error; a token limit needs no price.
func TestBudgetNeedsPrices(t *testing.T) {
	prices := pricing.Builtin()
	tests := []struct {
		b      budgetOptions
		models []string
		code   string
	}{
		{budgetOptions{maxCost: 1}, []string{"claude-sonnet-4-5"}, ""},
		{budgetOptions{maxCost: 1}, []string{"claude-sonnet-4-5", "house-model"}, errcode.Usage},
		{budgetOptions{caseMaxCost: 1}, []string{"house-model"}, errcode.Usage},
		{budgetOptions{caseMaxTokens: 1000}, []string{"house-model"}, ""},
		{budgetOptions{maxCost: 1}, nil, ""}, // a script capsule: no model turn to price
	}
	for _, tt := range tests {
		if got := errcode.Code(tt.b.checkPrices(prices, tt.models)); got != tt.code {
			t.Errorf("%+v on %v: code %q, want %q", tt.b, tt.models, got, tt.code)
		}
	}
}

// sameBudget is == with NaN equal to itself.
func sameBudget(a, b budgetOptions) bool {
	same := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
	return same(a.maxCost, b.maxCost) && a.caseMaxTokens == b.caseMaxTokens && same(a.caseMaxCost, b.caseMaxCost)
}
