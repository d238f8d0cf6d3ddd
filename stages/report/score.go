package report

import (
	"context"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/scoring"
	"github.com/murmur-nexus/murmur-eval/stages/datasetcmd"
)

// score runs the case's scorers on its trace, result and session folder,
// keeps the scores in c.Scores and writes eval.jsonl. When a scorer cannot
// run, the case is an error with no verdict: it keeps no scores and gets no
// eval.jsonl, so that only passed and failed cases have scores anywhere.
func score(ctx context.Context, c *pipeline.Case, checks *datasetcmd.Launcher) error {
	plan := c.Scoring
	if plan == nil {
		plan = &scoring.Plan{}
	}
	lines := c.Session.Trace.Lines()
	raw := make([][]byte, len(lines))
	for i, l := range lines {
		raw[i] = l.JSON
	}
	tr, err := scoring.SummarizeTrace(raw)
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "read back the case's own trace")
	}
	scores, scoreErr := plan.Score(ctx, scoring.Input{
		CaseID:     c.Input.ID,
		SessionID:  c.SessionID,
		SessionDir: c.SessionDir,
		Trace:      tr,
		ResultText: c.Loop.ResultText,
		Expected:   c.Input.Expected,
		Checks:     caseChecks{box: checks, c: c},
	})
	if scoreErr != nil {
		return scoreErr
	}
	if err := scoring.WriteEvalFile(c.SessionDir, scores, c.Input.ID, plan.Config.DatasetID, tr.TotalTurns, tr.EndedAt); err != nil {
		return errcode.Wrap(errcode.IO, err, "write %s", scoring.EvalFile)
	}
	c.Scores = scores
	return nil
}
