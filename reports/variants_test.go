package reports

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func variantRow(id, variant, status string, tokens int64, cost *float64) ResultRow {
	model := "m-" + variant
	return ResultRow{RunID: "r", CaseID: id, Epoch: 1, Status: status, Variant: &variant, Model: &model, InputTokens: tokens, CostUSD: cost}
}

func TestVariantsDigest(t *testing.T) {
	s := &Summary{}
	s.SetVariants([]string{"b", "a"}) // the run's order, not the rows'
	rows := []ResultRow{
		variantRow("c1", "a", StatusPassed, 10, new(0.5)), variantRow("c1", "b", StatusPassed, 20, nil),
		variantRow("c2", "a", StatusPassed, 10, new(0.25)), variantRow("c2", "b", StatusFailed, 20, nil),
		variantRow("c3", "a", StatusFailed, 10, nil), variantRow("c3", "b", StatusError, 20, nil),
		variantRow("c4", "a", StatusPassed, 10, nil), variantRow("c4", "b", StatusFailed, 20, nil),
	}
	for _, r := range rows {
		s.Add(r)
	}
	d := s.Digest(0)
	want := []VariantDigest{
		{Name: "b", Model: "m-b", Cases: 4, Passed: 1, Failed: 2, Unscored: 1, Ran: 4, PassRate: NewRate(1, 3), Tokens: 80},
		{Name: "a", Model: "m-a", Cases: 4, Passed: 3, Failed: 1, Ran: 4, PassRate: NewRate(3, 4), Tokens: 40, CostUSD: new(0.75)},
	}
	if diff := cmp.Diff(d.Variants, want); diff != "" {
		t.Errorf("variants: got -, want +\n%s", diff)
	}
	// c3 is unscored in b: not paired. c1 both; c2, c4 a only.
	wantPairs := []VariantPair{{A: "b", B: "a", Paired: 3, Both: 1, AOnly: 0, BOnly: 2, PValue: McNemarExact(0, 2)}}
	if diff := cmp.Diff(d.VariantPairs, wantPairs); diff != "" {
		t.Errorf("pairs: got -, want +\n%s", diff)
	}
	var text, md strings.Builder
	if err := writeVariants(&text, d.Variants, d.VariantPairs, false); err != nil {
		t.Fatal(err)
	}
	if err := writeVariants(&md, d.Variants, d.VariantPairs, true); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"variants:", "b vs a: 3 paired, 1 both passed, 0 b only, 2 a only, McNemar p=0.5", "pass rate 75.0% [30.1–95.4%], 40 tokens, cost $0.7500"} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("terminal lacks %q:\n%s", w, text.String())
		}
	}
	if !strings.Contains(md.String(), "| a | m-a | 4 | 3 | 1 | 0 |") {
		t.Errorf("markdown lacks a's row:\n%s", md.String())
	}
}

func TestNoVariantsNoDigest(t *testing.T) {
	s := &Summary{}
	s.SetVariants([]string{""})
	s.Add(ResultRow{RunID: "r", CaseID: "c", Epoch: 1, Status: StatusPassed})
	if d := s.Digest(0); d.Variants != nil || d.VariantPairs != nil {
		t.Errorf("a run without variants: %+v, %+v", d.Variants, d.VariantPairs)
	}
}

func TestVariantRun(t *testing.T) {
	a, b := "a", "b"
	run := &RunData{Path: "run", Results: []ResultRow{{CaseID: "c", Variant: &a}, {CaseID: "c", Variant: &b}},
		Scores: []ScoreRow{{CaseID: "c", Scorer: "s", Variant: &b}}}
	got, ok := VariantRun(run, "b")
	if !ok || len(got.Results) != 1 || len(got.Scores) != 1 || got.Results[0].Variant != nil || got.Scores[0].Variant != nil {
		t.Errorf("VariantRun(b) = %+v, %v", got, ok)
	}
	if run.Results[1].Variant == nil {
		t.Error("VariantRun changed its input")
	}
	if _, ok := VariantRun(run, "z"); ok {
		t.Error("VariantRun of a variant the run lacks: ok")
	}
}

// TestJUnitVariants: a case's variants are two test cases, named apart,
// spilled or not.
func TestJUnitVariants(t *testing.T) {
	for name, j := range map[string]*JUnit{"held": {}, "spilled": NewSpillingJUnit(t.TempDir())} {
		for _, v := range []string{"b", "a"} {
			j.Add(variantRow("c1", v, StatusPassed, 1, nil), nil)
		}
		var b strings.Builder
		if err := j.Write(&b, &Digest{}, time.Time{}); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []string{`name="c1@a"`, `name="c1@b"`} {
			if !strings.Contains(b.String(), tc) {
				t.Errorf("%s: junit.xml lacks %s:\n%s", name, tc, b.String())
			}
		}
	}
	if got := (CaseKey{CaseID: "c", Epoch: 2, Variant: "m"}).String(); got != "c@m#2" {
		t.Errorf("CaseKey.String = %q, want c@m#2", got)
	}
}
