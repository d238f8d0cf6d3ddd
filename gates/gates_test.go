package gates

import (
	"math"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/reports"
)

func TestParseRate(t *testing.T) {
	for in, want := range map[string]float64{"0.8": 0.8, "80%": 0.8, " 5% ": 0.05, "1": 1, "0": 0, "100%": 1, "2.5%": 0.025} {
		if got, err := ParseRate(in); err != nil || math.Abs(got-want) > 1e-12 {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "80", "1.5", "-0.1", "x%", "NaN", "eighty"} {
		if _, err := ParseRate(in); err == nil {
			t.Errorf("ParseRate(%q) succeeded, want an error", in)
		}
	}
	if got, err := ParsePoints("2.5pp"); err != nil || got != 2.5 {
		t.Errorf("ParsePoints(2.5pp) = %v, %v", got, err)
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
		g                Options
		diff             *reports.DiffReport
		budget, gateFail bool
		gates            []string
	}{
		{"defaults, clean run", digest(8, 2, 0), Options{FailUnder: -1}, nil, false, false, []string{"max_error_rate"}},
		{"any error exceeds the default budget", digest(8, 2, 1), Options{FailUnder: -1}, nil, true, false, []string{"max_error_rate"}},
		{"error within budget", digest(8, 1, 1), Options{FailUnder: -1, MaxErrorRate: 0.1}, nil, false, false, []string{"max_error_rate"}},
		{"pass rate under", digest(7, 3, 0), Options{FailUnder: 0.8}, nil, false, true, []string{"max_error_rate", "fail_under"}},
		{"pass rate at the threshold", digest(8, 2, 0), Options{FailUnder: 0.8}, nil, false, false, []string{"max_error_rate", "fail_under"}},
		{"errors do not lower the scored pass rate", digest(8, 2, 5), Options{FailUnder: 0.8, MaxErrorRate: 1}, nil, false, false, []string{"max_error_rate", "fail_under"}},
		{"nothing scored fails fail_under", digest(0, 0, 3), Options{FailUnder: 0.5, MaxErrorRate: 1}, nil, false, true, []string{"max_error_rate", "fail_under"}},
		{"regression", digest(8, 2, 0), Options{FailUnder: -1}, regressed, false, true, []string{"max_error_rate", "baseline"}},
		{"no regression", digest(8, 2, 0), Options{FailUnder: -1}, &reports.DiffReport{}, false, false, []string{"max_error_rate", "baseline"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Evaluate(tt.d, tt.g, tt.diff)
			var names []string
			for _, g := range v.Gates {
				names = append(names, g.Gate)
			}
			if v.BudgetExceeded != tt.budget || v.GateFailed != tt.gateFail || !cmp.Equal(names, tt.gates) {
				t.Errorf("budget %v, gate failed %v, gates %v; want %v, %v, %v (%+v)", v.BudgetExceeded, v.GateFailed, names, tt.budget, tt.gateFail, tt.gates, v.Gates)
			}
		})
	}
	v := Evaluate(digest(8, 2, 0), Options{FailUnder: -1}, regressed)
	if want := "regressed against runs/base: overall -10.0 points (20 pass→fail, p=1.9e-06)"; v.Gates[1].Detail != want {
		t.Errorf("baseline detail %q, want %q", v.Gates[1].Detail, want)
	}
}

// TestBaselineGateDetection: the baseline gate records what it can
// detect; a gate that cannot fire (or enforce --max-drop) passes with a
// warning, and fails under --require-detectable with E-EVL-006.
func TestBaselineGateDetection(t *testing.T) {
	five := smallDiff(5)
	hundred := smallDiff(100)
	tests := []struct {
		name    string
		diff    *reports.DiffReport
		require bool
		passed  bool
		warning bool
	}{
		{"cannot fire: a warning", five, false, true, true},
		{"cannot fire, --require-detectable: failed", five, true, false, true},
		{"can fire", hundred, true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := Options{FailUnder: -1, Alpha: 0.05, MaxDropPP: 5, RequireDetectable: tt.require}
			var d reports.Summary
			dg := d.Digest(0)
			v := Evaluate(&dg, g, tt.diff)
			gate := v.Gates[len(v.Gates)-1]
			if gate.Gate != "baseline" || gate.Passed != tt.passed || v.GateFailed == tt.passed || (gate.Warning != "") != tt.warning {
				t.Errorf("gate %+v, gate failed %v", gate, v.GateFailed)
			}
			if gate.Detection == nil || *gate.Detection != tt.diff.Detection {
				t.Errorf("gate detection %v, want %+v", gate.Detection, tt.diff.Detection)
			}
			err := DetectionError(tt.diff, g)
			if tt.warning != errcode.Is(err, errcode.GateUndetectable) {
				t.Errorf("DetectionError = %v, want E-EVL-006: %v", err, tt.warning)
			}
		})
	}
}

// smallDiff compares two runs of n paired cases where nothing changed.
func smallDiff(n int) *reports.DiffReport {
	base := &reports.RunData{Path: "base"}
	for i := range n {
		id := strconv.Itoa(i)
		base.Results = append(base.Results, reports.ResultRow{RunID: "b", CaseID: id, Epoch: 1, Status: reports.StatusPassed})
	}
	return reports.Diff(base, base, reports.DiffOptions{Alpha: 0.05, MaxDropPP: 5})
}
