package main

import (
	"fmt"
	"io"
	"sync/atomic"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/models"
	"github.com/murmur-nexus/murmur-eval/survey"
)

// scoreJudge gives the plan its judge when llm_judge scorers need one (the
// manifest's, or a case's expected.rubric) and --judge-model names it: the
// judge's client only (models.Models.Judge; the agent's source is never
// asked), live, recorded into --record DIR/judge or replayed from --replay
// DIR/judge. Without a judge model such a re-scoring is refused with
// E-EVL-090, as a run is, unless --run-anyway: the judge scorers are then
// not applied, and said so. The caller closes the models.
func scoreJudge(o scoreOptions, in *scoreInputs, stderr io.Writer, env map[string]string) (models.Models, error) {
	none := models.Models{Close: func() {}}
	judged := in.plan.NeedsJudge() || in.rubrics > 0
	switch {
	case judged && !o.judge.configured() && o.runAnyway:
		fmt.Fprintln(stderr, errcode.FormatWarning(errcode.New(errcode.JudgeMissing,
			"--run-anyway: the manifest's llm_judge scorers and the expected.rubric of %s are not applied: no judge model", plural(in.rubrics, "case"))))
		return none, nil
	case judged && !o.judge.configured():
		return none, errcode.New(errcode.JudgeMissing, "%s has llm_judge scorers (the manifest's, or the expected.rubric of %s) and score has no judge model",
			o.run, plural(in.rubrics, "case")).
			WithHint("name the judge as the run did: --judge-model NAME (--judge-provider, --judge-endpoint, MURMUR_EVAL_JUDGE_API_KEY), with --replay DIR to serve its recorded answers; --run-anyway scores without them")
	case !judged:
		if o.judge.configured() {
			fmt.Fprintln(stderr, survey.Notef("--judge-model %s: no llm_judge scorer in murmur.yaml and no case with expected.rubric; nothing is judged", o.judge.model))
		}
		return none, nil
	}
	mods, err := models.New(models.Flags{Replay: o.replay, Record: o.record, Workers: 1, Judge: true}, env)
	if err != nil {
		return none, err
	}
	in.plan.Judge = o.judge.judge(mods.Judge)
	in.judge = fmt.Sprintf("provider=%s endpoint=%s model=%s samples=%d", o.judge.provider, o.judge.endpoint, o.judge.model, o.judge.samples)
	return mods, nil
}

// judgeObserver counts the judge's replayed requests that differ from the
// recorded ones and its retried requests, over every case (safe for
// concurrent use); the rest it ignores.
type judgeObserver struct {
	inference.NopObserver
	divergences, retries *atomic.Int64
}

func newJudgeObserver() judgeObserver {
	return judgeObserver{divergences: new(atomic.Int64), retries: new(atomic.Int64)}
}

// Diverged counts a divergence.
func (o judgeObserver) Diverged(inference.Divergence) { o.divergences.Add(1) }

// Retried counts a retry.
func (o judgeObserver) Retried(inference.Retry) { o.retries.Add(1) }

// print says, when there were any, how many judge requests diverged from
// the recordings --replay served (their recorded answers were used) and
// how many were retried.
func (o judgeObserver) print(w io.Writer) {
	if n := o.divergences.Load(); n > 0 {
		fmt.Fprintf(w, "murmur-eval score: warning: %s to the judge differed from the ones recorded with them; the recorded answers were used (the judge now sees something else: record again)\n", plural(int(n), "replayed request"))
	}
	if n := o.retries.Load(); n > 0 {
		fmt.Fprintf(w, "murmur-eval score: %s to the judge retried (429, 5xx or connection failures)\n", plural(int(n), "request"))
	}
}
