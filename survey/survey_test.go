package survey

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/scoring"
)

// survey runs a survey over cases, as the dataset's one pass does.
func survey(cases ...datasets.Case) *Survey {
	s := New(&scoring.Plan{}, "cases.jsonl")
	for i, c := range cases {
		c.Line = i + 1
		s.Visit(i, c)
	}
	return s
}

// TestSurvey: expected fields are checked (a bad one is an error at its
// file:line), one murmur-eval does not read is a warning naming the key it
// most likely meant that refuses the run (E-EVL-007: its check is off), the files the lines name are gathered, and a case
// with a setup or a check runs a command.
func TestSurvey(t *testing.T) {
	tests := []struct {
		name     string
		expected string
		setup    bool
		code     string // CheckExpected's error code
		warning  string // a substring of the one warning; "" for none
		commands bool
	}{
		{"none", ``, false, "", "", false},
		{"null", `null`, false, "", "", false},
		{"read", `{"result_equals": "42"}`, false, "", "", false},
		{"check", `{"check": {"command": ["true"]}}`, false, "", "", true},
		{"setup", ``, true, "", "", true},
		{"typo", `{"result_equal": "42"}`, false, "", `unknown key "result_equal" in expected (did you mean "result_equals"?)`, false},
		{"not an object", `"42"`, false, "", "expected is not an object murmur-eval reads", false},
		{"not an object: the hint", `"42"`, false, "", `hint: to check the answer, write expected as an object, e.g. {"result_contains": "..."}`, false},
		{"bad", `{"result_equals": 42}`, false, errcode.EvalDataset, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := datasets.Case{ID: "c", Expected: json.RawMessage(tt.expected), TaskPath: "/d/task.md"}
			if tt.setup {
				c.Setup = &datasets.Setup{}
			}
			s := survey(c)
			warnings, err := s.CheckExpected()
			if errcode.Code(err) != tt.code {
				t.Fatalf("code %q, want %q (%v)", errcode.Code(err), tt.code, err)
			}
			if err != nil && !strings.Contains(errcode.Format(err), "cases.jsonl:1") {
				t.Errorf("error %q does not name cases.jsonl:1", errcode.Format(err))
			}
			if (len(warnings) > 0) != (tt.warning != "") || (tt.warning != "" && !strings.Contains(warnings[0].String(), tt.warning)) {
				t.Errorf("warnings %q, want %q", warnings, tt.warning)
			}
			for _, w := range warnings {
				if w.Kind != Unapplied || !errcode.Is(w.Err, errcode.UnappliedScoring) {
					t.Errorf("warning %q: kind %d, want Unapplied with %s", w, w.Kind, errcode.UnappliedScoring)
				}
			}
			if s.Files["/d/task.md"] != "task" {
				t.Errorf("files %v, want the task file", s.Files)
			}
			if got := len(s.commands) > 0; got != tt.commands {
				t.Errorf("runs a command %v, want %v", got, tt.commands)
			}
			if s.RunsCommands(datasets.Picked{}) {
				t.Error("an empty selection runs a command")
			}
		})
	}
}

// TestWarnUnread: the first five cases are named, then a count.
func TestWarnUnread(t *testing.T) {
	var cases []datasets.Case
	for i := range 7 {
		cases = append(cases, datasets.Case{ID: fmt.Sprint("c", i), Expected: json.RawMessage(`"x"`)})
	}
	warnings, err := survey(cases...).CheckExpected()
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 6 || warnings[5].Err.Error() != "... and 2 cases more with an expected value murmur-eval does not read (7 in all)" {
		t.Errorf("warnings %q", warnings)
	}
}

// TestNewPlan: the plan carries the check timeout and PATH; the manifest's
// warnings come back named by its path, and a capsule without a readable
// manifest gives an empty plan (Resolve refuses it later).
func TestNewPlan(t *testing.T) {
	plan, warnings := NewPlan(t.TempDir(), map[string]string{"PATH": "/bin"}, 3*time.Second)
	if plan.CheckTimeout != 3*time.Second || plan.PATH != "/bin" || len(warnings) != 0 || len(plan.Config.Scorers) != 0 {
		t.Errorf("plan %+v, warnings %q", plan, warnings)
	}
	dir := t.TempDir()
	manifest := "name: calc\nversion: 0.1.0\nbogus_key: 1\n"
	if err := os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if m := ReadManifest(dir, nil); m == nil {
		t.Skip("the minimal manifest does not parse; the e2e tests cover NewPlan's warnings")
	}
	_, warnings = NewPlan(dir, nil, 0)
	if len(warnings) != 1 || !strings.Contains(warnings[0].String(), "bogus_key") || warnings[0].Kind != Note {
		t.Errorf("warnings %q, want the unknown key as a note", warnings)
	}
}

// TestNewPlanKinds: what drops a scorer the manifest writes (a misspelt
// observability, eval or scorers key, a key of a scorer entry, an unknown
// scorer type) refuses the run with E-EVL-007 and keeps murmur's
// did-you-mean; what changes nothing scored (another unknown key) is a
// note, and an llm_judge scorer none (the run refuses it without a judge
// model: TestJudgeScoresAndReplays).
func TestNewPlanKinds(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []Kind
		text       string // a substring of the first warning
	}{
		{"observability misspelt", "observabilty:\n  eval:\n    scorers: [{type: exit_ok}]\n", []Kind{Unapplied},
			`murmur.yaml:3:1: unknown key "observabilty" (did you mean "observability"?); murmur ignores it, so the observability.eval scorers it configures are not applied as written`},
		{"eval misspelt", "observability:\n  evl:\n    scorers: [{type: exit_ok}]\n", []Kind{Unapplied}, `(did you mean "eval"?)`},
		{"max misspelt", "observability:\n  eval:\n    scorers: [{type: max_turns, mx: 2}]\n", []Kind{Unapplied}, `"observability.eval.scorers[0].mx"`},
		{"unknown scorer type", "observability:\n  eval:\n    scorers: [{type: exit_okk}]\n", []Kind{Unapplied},
			"murmur.yaml:5:22: unknown scorer type 'exit_okk' — skipping: the scorer is not applied"},
		{"llm_judge: scored by the judge (no judge model is the run's refusal, E-EVL-090)", "observability:\n  eval:\n    scorers: [{type: llm_judge}]\n", nil, ""},
		{"other key", "colour: red\n", []Kind{Note}, `unknown key "colour"`},
		{"none", "observability:\n  eval:\n    scorers: [{type: exit_ok}]\n", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte("name: calc\nversion: 0.1.0\n"+tt.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			_, warnings := NewPlan(dir, nil, 0)
			var kinds []Kind
			for _, w := range warnings {
				kinds = append(kinds, w.Kind)
				if w.Refuses() != (w.Kind == Unapplied) || (w.Kind == Unapplied) != errcode.Is(w.Err, errcode.UnappliedScoring) {
					t.Errorf("%q: kind %d, refuses %v, code %q", w, w.Kind, w.Refuses(), errcode.Code(w.Err))
				}
			}
			if !slices.Equal(kinds, tt.want) {
				t.Fatalf("kinds %v, want %v: %q", kinds, tt.want, warnings)
			}
			if tt.text != "" && !strings.Contains(warnings[0].String(), tt.text) {
				t.Errorf("warning %q does not hold %q", warnings[0], tt.text)
			}
		})
	}
}

// TestMurmurRefusalsKinds: what mur eval run refuses refuses the run; a
// replay run has no driver or endpoint to refuse; under the built-in
// provider those two are notes, and the lifecycle hang still refuses.
func TestMurmurRefusalsKinds(t *testing.T) {
	dir := t.TempDir()
	manifest := "name: q\nversion: 0.1.0\ninference:\n  transport: http\n  endpoint: https://api.anthropic.com\n  model: m\n  driver:\n    artifact: murmur-driver-anthropic\n" +
		"lifecycle:\n  task_acceptance: queue\n  after_task: sleep\n"
	if err := os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	m := ReadManifest(dir, nil)
	if m == nil {
		t.Fatal("the manifest does not parse")
	}
	type found struct {
		code string
		kind Kind
	}
	tests := []struct {
		name            string
		replay, builtin bool
		want            []found
	}{
		{"live", false, false, []found{{errcode.RunDriverAbsent, Refusal}, {errcode.MurmurEndpointDenied, Refusal}, {errcode.MurmurWouldHang, Refusal}}},
		{"builtin", false, true, []found{{errcode.RunDriverAbsent, Note}, {errcode.MurmurEndpointDenied, Note}, {errcode.MurmurWouldHang, Refusal}}},
		{"replay", true, false, []found{{errcode.MurmurWouldHang, Refusal}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []found
			for _, w := range MurmurRefusals(m, tt.replay, tt.builtin) {
				got = append(got, found{errcode.Code(w.Err), w.Kind})
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("refusals %v, want %v", got, tt.want)
			}
		})
	}
}
