package reports

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// engineeredRuns builds two runs of n cases scored by exit_ok and
// result_contains. In the base, every fourth case fails. The head is the
// base with regress cases that passed now failing (the first ones, in case
// order) and improve cases that failed now passing.
func engineeredRuns(n, regress, improve int) (*RunData, *RunData) {
	base := &RunData{Path: "base"}
	head := &RunData{Path: "head"}
	for i := range n {
		id := fmt.Sprintf("case-%03d", i)
		pass := i%4 != 3
		headPass := pass
		switch {
		case pass && regress > 0:
			headPass, regress = false, regress-1
		case !pass && improve > 0:
			headPass, improve = true, improve-1
		}
		addCase(base, "run_base", id, pass)
		addCase(head, "run_head", id, headPass)
	}
	return base, head
}

func addCase(r *RunData, runID, id string, pass bool) {
	status, result := StatusPassed, ResultPass
	if !pass {
		status, result = StatusFailed, ResultFail
	}
	started := time.Date(2025, 3, 1, 2, 0, 0, 0, time.UTC).Add(time.Duration(len(r.Results)) * time.Second)
	r.Results = append(r.Results, ResultRow{RunID: runID, CaseID: id, Epoch: 1, Status: status, StartedAt: started, DurationMS: 500})
	r.Scores = append(r.Scores,
		ScoreRow{RunID: runID, CaseID: id, Epoch: 1, Scorer: "exit_ok", ScorerType: "exit_ok", Result: ResultPass, Score: 1},
		ScoreRow{RunID: runID, CaseID: id, Epoch: 1, Scorer: "result_contains", ScorerType: "result_contains", Result: result})
}

func scorer(t *testing.T, r *DiffReport, name string) ScorerDiff {
	t.Helper()
	for _, s := range r.Scorers {
		if s.Scorer == name {
			return s
		}
	}
	t.Fatalf("diff has no scorer %q", name)
	return ScorerDiff{}
}

func TestDiffRegression(t *testing.T) {
	base, head := engineeredRuns(200, 20, 0)
	r := Diff(base, head, DiffOptions{Alpha: 0.05})
	o := scorer(t, r, OverallScorer)
	if o.Base.Passed != 150 || o.Head.Passed != 130 || o.Paired != 200 || len(o.PassToFail) != 20 || len(o.FailToPass) != 0 {
		t.Errorf("overall: base %d, head %d, paired %d, flips %d/%d; want 150, 130, 200, 20/0",
			o.Base.Passed, o.Head.Passed, o.Paired, len(o.PassToFail), len(o.FailToPass))
	}
	if want := 2 * math.Pow(0.5, 20); math.Abs(o.PValue-want) > 1e-15 {
		t.Errorf("p = %g, want %g", o.PValue, want)
	}
	if o.PairedChangePP != -10 || math.Abs(o.ChangePP+10) > 1e-9 || !o.Regression {
		t.Errorf("change %v / paired %v, regression %v; want -10, -10, true", o.ChangePP, o.PairedChangePP, o.Regression)
	}
	if o.PassToFail[0] != (CaseKey{CaseID: "case-000", Epoch: 1}) || o.PassToFail[19] != (CaseKey{CaseID: "case-025", Epoch: 1}) {
		t.Errorf("pass→fail %v", o.PassToFail)
	}
	if diff := cmp.Diff([]string{"overall", "result_contains"}, r.Regressions); diff != "" {
		t.Errorf("regressions (-want +got):\n%s", diff)
	}
	if s := scorer(t, r, "exit_ok"); s.Regression || s.PValue != 1 {
		t.Errorf("exit_ok did not change, got %+v", s)
	}
	// A 10-point drop is not more than a tolerated 10 points.
	if r := Diff(base, head, DiffOptions{Alpha: 0.05, MaxDropPP: 10}); len(r.Regressions) != 0 {
		t.Errorf("with --max-drop 10, regressions %v, want none", r.Regressions)
	}
}

func TestDiffNoise(t *testing.T) {
	// Pure noise: as many cases flip each way, chosen at random.
	base, head := engineeredRuns(200, 0, 0)
	rng := rand.New(rand.NewPCG(1, 2))
	flipped := map[int]bool{}
	var up, down int
	for up < 9 || down < 9 {
		i := rng.IntN(200)
		if flipped[i] {
			continue
		}
		passed := base.Results[i].Status == StatusPassed
		if (passed && down == 9) || (!passed && up == 9) {
			continue
		}
		flipped[i] = true
		if passed {
			down++
		} else {
			up++
		}
		head.Results[i].Status = map[bool]string{true: StatusFailed, false: StatusPassed}[passed]
		head.Scores[2*i+1].Result = map[bool]string{true: ResultFail, false: ResultPass}[passed]
	}
	r := Diff(base, head, DiffOptions{Alpha: 0.05})
	o := scorer(t, r, OverallScorer)
	if len(o.PassToFail) != 9 || len(o.FailToPass) != 9 || o.PValue != 1 || o.Regression || len(r.Regressions) != 0 {
		t.Errorf("noise: flips %d/%d, p %g, regressions %v; want 9/9, 1, none", len(o.PassToFail), len(o.FailToPass), o.PValue, r.Regressions)
	}
}

func TestDiffOneSidedCases(t *testing.T) {
	base, head := engineeredRuns(10, 0, 0)
	head.Results = head.Results[:8] // case-008 and case-009 are in the base only
	head.Scores = head.Scores[:16]
	addCase(head, "run_head", "new-case", true)
	code := "E-EVL-010"
	head.Results[0].Status, head.Results[0].ErrorCode = StatusError, &code // unscored in head
	head.Scores = head.Scores[2:]
	r := Diff(base, head, DiffOptions{Alpha: 0.05})
	if diff := cmp.Diff([]CaseKey{{CaseID: "case-008", Epoch: 1}, {CaseID: "case-009", Epoch: 1}}, r.OnlyBase); diff != "" {
		t.Errorf("only base (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]CaseKey{{CaseID: "new-case", Epoch: 1}}, r.OnlyHead); diff != "" {
		t.Errorf("only head (-want +got):\n%s", diff)
	}
	o := scorer(t, r, OverallScorer)
	if diff := cmp.Diff([]CaseKey{{CaseID: "case-000", Epoch: 1}, {CaseID: "case-008", Epoch: 1}, {CaseID: "case-009", Epoch: 1}}, o.OnlyBase); diff != "" {
		t.Errorf("overall scored in base only (-want +got):\n%s", diff)
	}
	if o.Paired != 7 {
		t.Errorf("paired %d, want 7", o.Paired)
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"only in base (2): case-008, case-009", "only in head (1): new-case", "overall: scored in base only (3)", "no regression"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text diff lacks %q:\n%s", want, b.String())
		}
	}
}

func TestDiffText(t *testing.T) {
	base, head := engineeredRuns(200, 20, 0)
	var b strings.Builder
	if err := Diff(base, head, DiffOptions{Alpha: 0.05}).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "diff.golden", b.String())
}
