package reports

import (
	"testing"
)

// TestCalibration: kappa, TPR and TNR equal the values computed by hand
// from each confusion matrix (the comments show the arithmetic), and what
// is undefined for the counts is nil.
func TestCalibration(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name            string
		m               Confusion
		agreement       float64
		kappa, tpr, tnr *float64
	}{
		// n=50, p_o=35/50=0.7; judge passes 25/50, people 30/50:
		// p_e=0.5·0.6+0.5·0.4=0.5; kappa=(0.7-0.5)/(1-0.5)=0.4;
		// TPR=20/30, TNR=15/20.
		{"moderate", Confusion{BothPass: 20, JudgePass: 5, JudgeFail: 10, BothFail: 15}, 0.7, f(0.4), f(2.0 / 3), f(0.75)},
		// n=100, p_o=0.9, p_e=0.5: kappa=0.8; TPR=TNR=45/50.
		{"good", Confusion{BothPass: 45, JudgePass: 5, JudgeFail: 5, BothFail: 45}, 0.9, f(0.8), f(0.9), f(0.9)},
		// p_o=0.8, p_e=0.5: kappa exactly 0.6, the default threshold.
		{"at the threshold", Confusion{BothPass: 40, JudgePass: 10, JudgeFail: 10, BothFail: 40}, 0.8, f(0.6), f(0.8), f(0.8)},
		// Always wrong: p_o=0, p_e=0.5, kappa=-1.
		{"contrary", Confusion{JudgePass: 5, JudgeFail: 5}, 0, f(-1), f(0), f(0)},
		// A judge that passes everything: p_o=0.6, p_e=1·0.6+0·0.4=0.6,
		// kappa 0: no better than chance, though it agrees 60% of the time.
		{"passes all", Confusion{BothPass: 6, JudgePass: 4}, 0.6, f(0), f(1), f(0)},
		// n=13: p_o=10/13; judge passes 8/13, people 7/13:
		// p_e=(8·7+5·6)/169=86/169; kappa=(130-86)/(169-86)=44/83.
		{"odd counts", Confusion{BothPass: 6, JudgePass: 2, JudgeFail: 1, BothFail: 4}, 10.0 / 13, f(44.0 / 83), f(6.0 / 7), f(4.0 / 6)},
		// Both gave every case a pass: p_e=1, kappa 0/0; no people's fail.
		{"all pass on both sides", Confusion{BothPass: 10}, 1, nil, f(1), nil},
		{"all fail on both sides", Confusion{BothFail: 7}, 1, nil, nil, f(1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.m.Calibration()
			if c == nil {
				t.Fatal("Calibration() = nil")
			}
			if c.N != tt.m.N() || c.Matrix != tt.m {
				t.Errorf("n %d, matrix %+v; want %d, %+v", c.N, c.Matrix, tt.m.N(), tt.m)
			}
			if !near(c.Agreement, tt.agreement, 1e-12) {
				t.Errorf("agreement %v, want %v", c.Agreement, tt.agreement)
			}
			for _, s := range []struct {
				name      string
				got, want *float64
			}{{"kappa", c.Kappa, tt.kappa}, {"tpr", c.TPR, tt.tpr}, {"tnr", c.TNR, tt.tnr}} {
				switch {
				case (s.got == nil) != (s.want == nil):
					t.Errorf("%s %v, want %v", s.name, fmtPtr(s.got), fmtPtr(s.want))
				case s.got != nil && !near(*s.got, *s.want, 1e-12):
					t.Errorf("%s %v, want %v", s.name, *s.got, *s.want)
				}
			}
		})
	}
	if c := (Confusion{}).Calibration(); c != nil {
		t.Errorf("no labelled case: %+v, want nil", c)
	}
}

// TestKappaAtThreshold: a kappa of exactly 3/5 is not a rounding error
// below --judge-min-kappa 0.6.
func TestKappaAtThreshold(t *testing.T) {
	for _, m := range []Confusion{{40, 10, 10, 40}, {4, 1, 1, 4}, {400, 100, 100, 400}} {
		if k := *m.Calibration().Kappa; k != 0.6 || k < DefaultJudgeMinKappa {
			t.Errorf("%+v: kappa %v, want exactly 0.6", m, k)
		}
	}
}

// TestKappaBelow: the reason never reads as if the kappa met the threshold.
func TestKappaBelow(t *testing.T) {
	for _, tt := range []struct {
		k, min float64
		want   string
	}{
		{0.41176, 0.6, "kappa 0.41 < 0.6"},
		{0.5999, 0.6, "kappa 0.5999 < 0.6"},
		{0.596, 0.6, "kappa 0.596 < 0.6"},
		{-0.25, 0, "kappa -0.25 < 0"},
	} {
		if got := kappaBelow(tt.k, tt.min); got != tt.want {
			t.Errorf("kappaBelow(%v, %v) = %q, want %q", tt.k, tt.min, got, tt.want)
		}
	}
}

func fmtPtr(p *float64) any {
	if p == nil {
		return "nil"
	}
	return *p
}
