package report

import (
	"context"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/scoring"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// score runs the case's scorers on its trace, result and session folder,
// and writes eval.jsonl. When a scorer cannot run, the case is an error
// with no verdict: it keeps no scores and gets no eval.jsonl, so that only
// passed and failed cases have scores anywhere.
func (s Stage) score(ctx context.Context, c *pipeline.Case, ses *session.Session, out *session.Outcome) ([]scoring.Score, error) {
	plan := s.opts.Plan
	if plan == nil {
		plan = &scoring.Plan{}
	}
	in, err := pipeline.InputOf[datasets.Case](c)
	if err != nil {
		return nil, err
	}
	tr := Summary(ses.Trace)
	sin := scoring.Input{
		CaseID:     in.ID,
		Variant:    c.Variant,
		SessionID:  c.SessionID,
		SessionDir: c.SessionDir,
		Trace:      tr,
		ResultText: out.ResultText,
		Expected:   in.Expected,
		Checks:     caseChecks{box: s.opts.Commands, sandbox: s.opts.Reads.Sandbox, c: c},
	}
	if plan.Judge != nil {
		// What a judge reads: only gathered in a run that has one.
		sin.Task, sin.Transcript, sin.Diff = in.Task, out.Transcript.Transcript(), readDiff(c.SessionDir)
		// The judge's retries and divergences go to the trace as a model
		// turn's do (--max-divergence counts them), at the last turn; a
		// write failure there is the trace Close's to report.
		sin.Observer = &session.TraceObserver{Trace: ses.Trace, Turn: int(tr.TotalTurns), Prefix: "judge: "}
	}
	scores, scoreErr := plan.Score(ctx, sin)
	if scoreErr != nil {
		return nil, scoreErr
	}
	if err := scoring.WriteEvalFile(c.SessionDir, scores, in.ID, plan.Config.DatasetID, tr.TotalTurns, tr.EndedAt); err != nil {
		// A session file refused keeps its code (E-EVL-040); only an
		// uncoded failure is E-IO-003.
		return nil, errcode.WrapKeep(errcode.IO, err, "write %s", scoring.EvalFile)
	}
	return scores, nil
}

// Summary is what the scorers see of the session's trace, taken from the
// events as the writer wrote them (never parsed back from the lines): the
// last session_end's exit status, totals and time, the last task_end's
// exit status, and every tool and skill called, in order.
func Summary(w *trace.Writer) scoring.TraceSummary {
	var s scoring.TraceSummary
	for _, l := range w.Lines() {
		if l.Type == trace.TypeToolCall || l.Type == trace.TypeSkillCall {
			s.Observed = append(s.Observed, l.ToolName)
		}
	}
	s.TaskExitStatus = w.TaskExit()
	if end, at, ok := w.LastSessionEnd(); ok {
		s.Ended, s.ExitStatus, s.EndedAt = true, end.ExitStatus, at.UnixMilli()
		s.TotalTurns, s.TotalInputTokens, s.TotalOutputTokens = int64(end.TotalTurns), end.TotalInputTokens, end.TotalOutputTokens
	}
	return s
}
