package main

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/reports"
)

func TestParseRate(t *testing.T) {
	for in, want := range map[string]float64{"0.8": 0.8, "80%": 0.8, " 5% ": 0.05, "1": 1, "0": 0, "100%": 1, "2.5%": 0.025} {
		if got, err := parseRate(in); err != nil || math.Abs(got-want) > 1e-12 {
			t.Errorf("parseRate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "80", "1.5", "-0.1", "x%", "NaN", "eighty"} {
		if _, err := parseRate(in); err == nil {
			t.Errorf("parseRate(%q) succeeded, want an error", in)
		}
	}
	if got, err := parsePoints("2.5pp"); err != nil || got != 2.5 {
		t.Errorf("parsePoints(2.5pp) = %v, %v", got, err)
	}
}

func TestEvaluateGates(t *testing.T) {
	digest := func(passed, failed, errs int) *reports.Digest {
		var s reports.Summary
		add := func(n int, status string) {
			for range n {
				s.Add(reports.ResultRow{CaseID: status, Status: status})
			}
		}
		add(passed, reports.StatusPassed)
		add(failed, reports.StatusFailed)
		add(errs, reports.StatusError)
		d := s.Digest(0)
		return &d
	}
	regressed := &reports.DiffReport{Base: reports.RunRef{Path: "runs/base"}, Regressions: []string{"overall"},
		Scorers: []reports.ScorerDiff{{Scorer: "overall", Regression: true, PairedChangePP: -10, PassToFail: make([]reports.CaseKey, 20), PValue: 1.9e-6}}}
	tests := []struct {
		name             string
		d                *reports.Digest
		g                gateOptions
		diff             *reports.DiffReport
		budget, gateFail bool
		gates            []string
	}{
		{"defaults, clean run", digest(8, 2, 0), gateOptions{failUnder: -1}, nil, false, false, []string{"max_error_rate"}},
		{"any error exceeds the default budget", digest(8, 2, 1), gateOptions{failUnder: -1}, nil, true, false, []string{"max_error_rate"}},
		{"error within budget", digest(8, 1, 1), gateOptions{failUnder: -1, maxErrorRate: 0.1}, nil, false, false, []string{"max_error_rate"}},
		{"pass rate under", digest(7, 3, 0), gateOptions{failUnder: 0.8}, nil, false, true, []string{"max_error_rate", "fail_under"}},
		{"pass rate at the threshold", digest(8, 2, 0), gateOptions{failUnder: 0.8}, nil, false, false, []string{"max_error_rate", "fail_under"}},
		{"errors do not lower the scored pass rate", digest(8, 2, 5), gateOptions{failUnder: 0.8, maxErrorRate: 1}, nil, false, false, []string{"max_error_rate", "fail_under"}},
		{"nothing scored fails fail_under", digest(0, 0, 3), gateOptions{failUnder: 0.5, maxErrorRate: 1}, nil, false, true, []string{"max_error_rate", "fail_under"}},
		{"regression", digest(8, 2, 0), gateOptions{failUnder: -1}, regressed, false, true, []string{"max_error_rate", "baseline"}},
		{"no regression", digest(8, 2, 0), gateOptions{failUnder: -1}, &reports.DiffReport{}, false, false, []string{"max_error_rate", "baseline"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := evaluateGates(tt.d, tt.g, tt.diff)
			var names []string
			for _, g := range v.gates {
				names = append(names, g.Gate)
			}
			if v.budgetExceeded != tt.budget || v.gateFailed != tt.gateFail || !cmp.Equal(names, tt.gates) {
				t.Errorf("budget %v, gate failed %v, gates %v; want %v, %v, %v (%+v)", v.budgetExceeded, v.gateFailed, names, tt.budget, tt.gateFail, tt.gates, v.gates)
			}
		})
	}
	v := evaluateGates(digest(8, 2, 0), gateOptions{failUnder: -1}, regressed)
	if want := "regressed against runs/base: overall -10.0 points (20 pass→fail, p=1.9e-06)"; v.gates[1].Detail != want {
		t.Errorf("baseline detail %q, want %q", v.gates[1].Detail, want)
	}
}

func TestDiffAndShowUsage(t *testing.T) {
	for _, args := range [][]string{
		{"diff"},
		{"diff", "only-one"},
		{"diff", "a", "b", "c"},
		{"diff", "--alpha", "2", "a", "b"},
		{"diff", "--max-drop", "x", "a", "b"},
		{"diff", "--bogus", "a", "b"},
		{"diff", t.TempDir(), t.TempDir()}, // folders without results.parquet
		{"show"},
		{"show", "a", "b"},
		{"show", "--json", "--markdown", "a"},
		{"show", t.TempDir()},
		{"--fail-under", "120%", "--dataset", "x.jsonl", "--replay", "r"},
		{"--max-error-rate", "2", "--dataset", "x.jsonl", "--replay", "r"},
		{"--check-timeout", "0s", "--dataset", "x.jsonl", "--replay", "r"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, map[string]string{}, &stdout, &stderr)
		if code != exitUsage || !strings.HasPrefix(stderr.String(), "error[E-") {
			t.Errorf("%v: exit %d, stderr %q; want %d and a coded error", args, code, stderr.String(), exitUsage)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"diff", "a", "b"}, map[string]string{"MURMUR_EVAL_ALPHA": "lots"}, &stdout, &stderr); code != exitUsage {
		t.Errorf("a bad MURMUR_EVAL_ALPHA: exit %d, want %d", code, exitUsage)
	}
}
