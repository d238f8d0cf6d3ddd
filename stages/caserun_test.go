package stages

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/scoring"
	"github.com/murmur-nexus/murmur-eval/stages/contain"
	"github.com/murmur-nexus/murmur-eval/stages/loop"
	"github.com/murmur-nexus/murmur-eval/stages/report"
	"github.com/murmur-nexus/murmur-eval/stages/resolve"
)

// TestCaseRun: each stage's result fills its fields of the rows, a stage
// that stored none leaves them empty, and a case whose verdict is not
// passed or failed carries no scores.
func TestCaseRun(t *testing.T) {
	diff := int64(12)
	scores := []scoring.Score{{Name: "answer", Type: "result_contains", Pass: true, Value: 1}}
	full := func(failedAfter bool) *pipeline.Case {
		c := &pipeline.Case{ID: "c", Stages: []pipeline.StageResult{{Stage: "report", Outcome: pipeline.Ran}}}
		if failedAfter {
			c.Stages = append(c.Stages, pipeline.StageResult{Stage: "close", Outcome: pipeline.Failed, Err: errcode.New(errcode.IO, "close")})
		}
		pipeline.Store(c, resolve.Result, &resolve.Capsule{Manifest: &capsule.Manifest{Name: "calc", Version: "0.1.0", Inference: &capsule.Inference{Model: "m"}}})
		pipeline.Store(c, contain.Result, &contain.Policy{Declared: "scoped", Achieved: "advisory"})
		pipeline.Store(c, loop.Result, &loop.Outcome{ExitStatus: "ok", TaskExit: "ok", Reopens: 2})
		pipeline.Store(c, report.Result, &report.Report{DiffBytes: &diff, Scores: scores})
		return c
	}
	c := full(false)
	got := CaseRun(c)
	want := reports.CaseRun{Case: c, CapsuleName: "calc", CapsuleVersion: "0.1.0", Model: "m", Containment: "advisory",
		ExitStatus: "ok", Reopens: 2, TaskExit: "ok", DiffBytes: &diff, Scores: scores}
	if d := cmp.Diff(want, got, cmp.Comparer(func(a, b *pipeline.Case) bool { return a == b })); d != "" {
		t.Errorf("CaseRun (-want +got):\n%s", d)
	}
	if r := CaseRun(full(true)); r.Scores != nil || r.DiffBytes == nil {
		t.Errorf("an error after Report: scores %v, diff %v; want no scores, the diff kept", r.Scores, r.DiffBytes)
	}
	empty := &pipeline.Case{ID: "e"}
	if r := CaseRun(empty); r.CapsuleName != "" || r.Trace != nil || r.Scores != nil || r.ExitStatus != "" {
		t.Errorf("no stage results: %+v", r)
	}
}
