package scoring

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/transcript"
)

// Plan is a run's scoring setup, shared read-only by every case: the
// manifest's scorers and how check commands run. The zero value scores with
// no manifest scorers and the default check settings.
type Plan struct {
	Config Config
	// CheckTimeout bounds a check command without its own timeout_seconds;
	// 0 means DefaultCheckTimeout.
	CheckTimeout time.Duration
	// PATH is the check command's PATH; "" means DefaultPATH.
	PATH string
	// Judge scores the llm_judge scorers (the manifest's, a case's
	// expected.rubric); nil leaves them unscored (the run was refused
	// unless --run-anyway: survey).
	Judge Judge
}

// Input is what one case's scorers read.
type Input struct {
	CaseID string
	// Variant is the run's variant the case ran ("" for none): the
	// judge's recording is kept per case and variant.
	Variant    string
	SessionID  string
	SessionDir string          // absolute: file checks and the check command run here
	Trace      TraceSummary    // the case's trace
	ResultText string          // out/result.txt
	Expected   json.RawMessage // the dataset line's expected value, verbatim
	// Checks runs the check command sandboxed; without one a check is
	// refused (an error), never run unsandboxed.
	Checks CheckRunner
	// What a judge sees besides the result: the task, the conversation
	// (nil when none was kept) and the workspace diff ("" for none).
	Task       string
	Transcript *transcript.Transcript
	Diff       string
	// Observer hears the judge's retries and replay divergences (nil:
	// nobody), as a model turn's are heard.
	Observer inference.Observer
}

// Expected parses a case's expected value (ParseExpected) and checks that
// none of its scorer names is also a manifest scorer's name. ok=false means
// the value is not for murmur-eval.
func (p *Plan) Expected(raw json.RawMessage) (e *Expected, ok bool, err error) {
	e, ok, err = ParseExpected(raw)
	if err != nil || !ok {
		return nil, ok, err
	}
	for _, name := range e.Names() {
		if slices.ContainsFunc(p.Config.Scorers, func(s ScorerSpec) bool { return s.Name == name }) {
			return nil, true, errcode.New(errcode.EvalDataset, "expected: scorer %q is also the name of a scorer in murmur.yaml", name).
				WithHint("rename the scorer in observability.eval.scorers")
		}
	}
	return e, true, nil
}

// Score runs every scorer of one case whose session ended, in order: the
// manifest's scorers, then the expected ones (result_*, files by path,
// check). When no scorer applies at all, the case is scored by exit_ok
// alone, so that every scored case has a verdict (RATIONALE.md).
//
// A scorer that cannot run (the check command does not start, the session
// folder cannot be opened) is the harness's or the dataset's error, not the
// model's: Score returns the scores it has and that error.
func (p *Plan) Score(ctx context.Context, in Input) ([]Score, error) {
	var scores []Score
	var judged []ScorerSpec
	for _, spec := range p.Config.Scorers {
		if spec.Type == TypeLLMJudge {
			judged = append(judged, spec)
		} else if s, ok := Builtin(spec, in.Trace); ok {
			scores = append(scores, s)
		}
	}
	// The line's expected value, parsed once for its scorers and its rubric
	// (an error was caught when the dataset loaded; only a bug gets one here).
	e, _, err := p.Expected(in.Expected)
	if err != nil {
		return scores, err
	}
	expected, err := p.expectedScores(ctx, in, e)
	for i := range expected {
		expected[i].Expected = true
	}
	scores = append(scores, expected...)
	if err != nil {
		return scores, err
	}
	manifestJudges := len(judged)
	if e != nil && e.Rubric != nil {
		judged = append(judged, *e.Rubric)
	}
	judges, err := p.judge(ctx, in, judged)
	for i := manifestJudges; i < len(judges); i++ {
		judges[i].Expected = true // the line's expected.rubric
	}
	scores = append(scores, judges...)
	if err != nil {
		return scores, err
	}
	if len(scores) == 0 {
		s, _ := Builtin(ScorerSpec{Type: TypeExitOK, Name: TypeExitOK}, in.Trace)
		s.Implicit = true
		scores = append(scores, s)
	}
	return scores, nil
}

// judge runs the case's llm_judge scorers, in order, after the others (a
// judge is the slow and costly scorer; a case whose other scorers could
// not run is not judged). Without a Judge they are not applied.
func (p *Plan) judge(ctx context.Context, in Input, specs []ScorerSpec) ([]Score, error) {
	if len(specs) == 0 || p.Judge == nil {
		return nil, nil
	}
	cj, err := p.Judge.ForCase(ctx, in)
	if err != nil {
		return nil, err
	}
	var out []Score
	for _, spec := range specs {
		s, err := cj.Judge(ctx, spec)
		if err != nil {
			return out, err
		}
		out = append(out, s)
	}
	return out, nil
}

// NeedsJudge reports whether the manifest declares an llm_judge scorer.
func (p *Plan) NeedsJudge() bool {
	return slices.ContainsFunc(p.Config.Scorers, func(s ScorerSpec) bool { return s.Type == TypeLLMJudge })
}

// expectedScores runs the scorers of the case's expected value e (nil:
// none), in order: result_*, files by path, check. On an error it returns
// the scores it has.
func (p *Plan) expectedScores(ctx context.Context, in Input, e *Expected) ([]Score, error) {
	if e == nil {
		return nil, nil
	}
	scores := e.resultScores(in.ResultText)
	files, err := e.fileScores(in.SessionDir)
	scores = append(scores, files...)
	if err != nil || e.Check == nil {
		return scores, err
	}
	s, err := runCheck(ctx, *e.Check, checkEnv{
		dir: in.SessionDir, caseID: in.CaseID, sessionID: in.SessionID,
		path: cmp.Or(p.PATH, DefaultPATH), timeout: cmp.Or(p.CheckTimeout, DefaultCheckTimeout),
		runner: in.Checks,
	})
	if err != nil {
		return scores, err
	}
	return append(scores, s), nil
}
