package scoring

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func names(scores []Score) []string {
	out := make([]string, len(scores))
	for i, s := range scores {
		out[i] = s.Name
	}
	return out
}

func TestPlanScoreOrderAndDefault(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "out.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := mustTrace(t, traceMaxTurns)
	plan := &Plan{Config: Config{Scorers: []ScorerSpec{{Type: TypeMaxTurns, Name: "turns", Max: 10}, {Type: TypeExitOK, Name: "exit_ok"}}}, PATH: os.Getenv("PATH")}
	in := Input{CaseID: "c", SessionDir: dir, Trace: tr, ResultText: "error: inference loop exceeded 4 turns", Checks: &fakeRunner{},
		Expected: json.RawMessage(`{"check": "test -f out.txt", "files": {"out.txt": true}, "result_contains": "42"}`)}
	scores, err := plan.Score(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"turns", "exit_ok", "result_contains", "file:out.txt", "check"}, names(scores)); diff != "" {
		t.Errorf("scorer order (-want +got):\n%s", diff)
	}
	if Overall(scores) != OverallFail {
		t.Errorf("overall %s, want fail", Overall(scores))
	}

	// Nothing configured: exit_ok alone decides.
	var empty Plan
	scores, err = empty.Score(context.Background(), Input{Trace: tr, Expected: json.RawMessage(`"free text"`)})
	want := []Score{{"exit_ok", TypeExitOK, false, 0, "exit_status=max_turns_reached", true, false, nil}}
	if err != nil || !cmp.Equal(want, scores) {
		t.Errorf("default scoring = %+v, %v; want %+v", scores, err, want)
	}
}

func TestPlanScoreCheckErrorKeepsScores(t *testing.T) {
	plan := &Plan{PATH: "/nonexistent"}
	scores, err := plan.Score(context.Background(), Input{SessionDir: t.TempDir(), Trace: mustTrace(t, traceTypical), ResultText: "42", Checks: &fakeRunner{},
		Expected: json.RawMessage(`{"result_contains": "42", "check": ["definitely-not-a-command"]}`)})
	if !errcode.Is(err, errcode.IONotFound) {
		t.Errorf("err = %v, want %s", err, errcode.IONotFound)
	}
	if diff := cmp.Diff([]string{"result_contains"}, names(scores)); diff != "" {
		t.Errorf("scores kept (-want +got):\n%s", diff)
	}
}
