package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/survey"
)

// TestConfigWarnings: a note is printed as a warning; what refuses the run
// is held and printed as errors, the last one returned to be printed last,
// unless --run-anyway prints it as a warning and records its code; --strict
// counts every warning printed.
func TestConfigWarnings(t *testing.T) {
	note := survey.Notef("murmur.yaml:3:1: unknown key %q; murmur ignores it", "colour")
	denied := survey.Warning{Kind: survey.Refusal, Err: errcode.New(errcode.MurmurEndpointDenied, "denied").At("murmur.yaml").WithHint("add it")}
	dropped := survey.Warning{Kind: survey.Unapplied, Err: errcode.New(errcode.UnappliedScoring, "dropped")}
	tests := []struct {
		name       string
		runAnyway  bool
		add        []survey.Warning
		printed    string // stderr after add and refuse
		refusal    string // the code of the error refuse returns
		ranDespite []string
		strict     bool // --strict refuses what was printed
	}{
		{"none", false, nil, "", "", nil, false},
		{"a note", false, []survey.Warning{note}, "murmur-eval: warning: murmur.yaml:3:1: unknown key \"colour\"; murmur ignores it\n", "", nil, true},
		{"one refusal", false, []survey.Warning{note, denied}, "murmur-eval: warning: murmur.yaml:3:1: unknown key \"colour\"; murmur ignores it\n" +
			"murmur-eval: no case was started: the run is refused for the error below (--run-anyway, MURMUR_EVAL_RUN_ANYWAY, runs with it as a warning)\n", errcode.MurmurEndpointDenied, nil, true},
		{"two refusals", false, []survey.Warning{denied, dropped}, "murmur-eval: no case was started: the run is refused for the 2 errors below (--run-anyway, MURMUR_EVAL_RUN_ANYWAY, runs with them as warnings)\n" +
			"error[E-EVL-081]: murmur.yaml: denied\n  hint: add it\n", errcode.UnappliedScoring, nil, false},
		{"run anyway", true, []survey.Warning{denied, dropped}, "murmur-eval: warning[E-EVL-081]: murmur.yaml: denied\n  hint: add it\nmurmur-eval: warning[E-EVL-007]: dropped\n", "",
			[]string{errcode.MurmurEndpointDenied, errcode.UnappliedScoring}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			c := &configWarnings{w: &b, runAnyway: tt.runAnyway}
			for _, w := range tt.add {
				c.add(w)
			}
			err := c.refuse()
			if got := b.String(); got != tt.printed {
				t.Errorf("printed\n%s\nwant\n%s", got, tt.printed)
			}
			if errcode.Code(err) != tt.refusal {
				t.Errorf("refuse() = %v, want code %q", err, tt.refusal)
			}
			if !slices.Equal(c.ranDespite, tt.ranDespite) {
				t.Errorf("ranDespite %q, want %q", c.ranDespite, tt.ranDespite)
			}
			if got := c.strict() != nil; got != tt.strict {
				t.Errorf("strict() refuses %v, want %v", got, tt.strict)
			}
			if strings.Contains(b.String(), "warning: error[") {
				t.Errorf("a warning printed as an error:\n%s", b.String())
			}
		})
	}
}
