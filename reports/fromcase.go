package reports

import (
	"path/filepath"
	"time"

	"github.com/murmur-nexus/murmur-eval/pipeline"
)

// FromCase turns a finished case into its results row and its events rows.
// outDir is the run folder, which session_dir is relative to.
func FromCase(c *pipeline.Case, outDir string) (ResultRow, []EventRow) {
	v := c.Verdict()
	row := ResultRow{
		RunID:     c.RunID,
		CaseID:    c.Input.ID,
		Epoch:     int32(c.Epoch),
		SessionID: c.SessionID,
		Status:    string(v.Status),
		StartedAt: c.StartedAt.UTC(),
		Attempt:   attempt(c),
	}
	if rel, err := filepath.Rel(outDir, c.SessionDir); err == nil {
		row.SessionDir = filepath.ToSlash(rel)
	}
	if s := c.ExitStatus(); s != "" {
		row.ExitStatus = &s
	}
	if v.Err != nil {
		msg := v.Err.Error()
		row.ErrorCode, row.ErrorStage, row.ErrorMessage = &v.Code, &v.Stage, &msg
	}
	var total time.Duration
	cols := StageColumns()
	for _, r := range c.Stages {
		total += r.Duration
		if r.Outcome == pipeline.Skipped {
			continue
		}
		for _, col := range cols {
			if col.Stage == r.Stage {
				col.set(&row, millis(r.Duration))
			}
		}
	}
	row.DurationMS = *millis(total)
	if c.Capsule != nil {
		m := c.Capsule.Manifest
		row.CapsuleName, row.CapsuleVersion = m.Name, m.Version
		if m.Inference != nil && m.Inference.Model != "" {
			model := m.Inference.Model
			row.Model = &model
		}
	}
	if c.Policy != nil {
		row.ContainmentAchieved = c.Policy.Achieved
	}
	row.Reopens = int32(c.Loop.Reopens)
	if c.Workspace != nil {
		row.WorkspaceDiffBytes = c.Workspace.DiffBytes
	}
	var events []EventRow
	if c.Session != nil && c.Session.Trace != nil {
		t := c.Session.Trace.Totals()
		row.Turns, row.InputTokens, row.OutputTokens, row.ToolCalls = int32(t.TotalTurns), t.TotalInputTokens, t.TotalOutputTokens, int32(t.TotalToolCalls)
		ec := c.Session.Trace.EvalCounts()
		row.InferenceRetries, row.ReplayDivergences = int32(ec.Retries), int32(ec.Divergences)
		row.ProviderInputTokens, row.ProviderOutputTokens = ec.ProviderInputTokens, ec.ProviderOutputTokens
		if ec.FirstDivergedTurn != nil {
			turn := int32(*ec.FirstDivergedTurn)
			row.ReplayFirstDivergentTurn = &turn
		}
		lines := c.Session.Trace.Lines()
		events = make([]EventRow, len(lines))
		for i, l := range lines {
			e := EventRow{
				RunID: c.RunID, CaseID: c.Input.ID, Epoch: int32(c.Epoch), SessionID: c.SessionID,
				Seq: int32(i), Timestamp: l.Timestamp.UTC(), EventType: l.Type, EventJSON: string(l.JSON), Attempt: attempt(c),
			}
			if l.Turn != nil {
				turn := int32(*l.Turn)
				e.Turn = &turn
			}
			if l.ToolName != "" {
				name := l.ToolName
				e.ToolName = &name
			}
			events[i] = e
		}
	}
	return row, events
}

func millis(d time.Duration) *float64 {
	f := float64(d.Nanoseconds()) / 1e6
	return &f
}
