package reports

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/pricing"
	"github.com/murmur-nexus/murmur-eval/scoring"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// CaseRun is what one attempt's rows are made of: the executor's record of
// the case, and what its stages produced that the rows carry. The caller,
// which wires the stages, reads those results (cmd/murmur-eval); reports
// knows no stage.
type CaseRun struct {
	Case *pipeline.Case
	// CapsuleName, CapsuleVersion and Model are the manifest's ("" before
	// Resolve succeeded).
	CapsuleName, CapsuleVersion, Model string
	// Containment is the achieved class ("" before Contain ran).
	Containment string
	// ExitStatus is the session's ("" when no session ended); Reopens how
	// many times on-task-end hooks reopened the task.
	ExitStatus string
	Reopens    int
	// TaskExit is task_end's status (ok, failed, reopen_budget_exhausted),
	// "" when no task ended.
	TaskExit string
	// DiffBytes is the size of out/workspace.diff before any cut; nil when
	// none was written.
	DiffBytes *int64
	// Trace is the session's trace, nil when Launch opened none.
	Trace *trace.Writer
	// Scores are the case's scores, in scoring order; nil when unscored.
	Scores []scoring.Score
	// Prices prices the case's model turns and its judge (cost.go); nil
	// computes no cost (--prices off).
	Prices *pricing.Table
}

// FromCase turns a finished case into its results row and its events rows.
// outDir is the run folder, which session_dir is relative to.
func FromCase(r CaseRun, outDir string) (ResultRow, []EventRow) {
	c := r.Case
	v := c.Verdict()
	row := ResultRow{
		RunID:     c.RunID,
		CaseID:    c.ID,
		Epoch:     int32(c.Epoch),
		SessionID: c.SessionID,
		Status:    string(v.Status),
		StartedAt: c.StartedAt.UTC(),
		Attempt:   attempt(c),
		Variant:   VariantOf(c),
	}
	if rel, err := filepath.Rel(outDir, c.SessionDir); err == nil {
		row.SessionDir = filepath.ToSlash(rel)
	}
	if s := r.ExitStatus; s != "" {
		row.ExitStatus = &s
	}
	if v.Err != nil {
		msg := v.Err.Error()
		row.ErrorCode, row.ErrorStage, row.ErrorMessage = &v.Code, &v.Stage, &msg
	}
	setStageMillis(&row, c.Stages)
	row.CapsuleName, row.CapsuleVersion = r.CapsuleName, r.CapsuleVersion
	if r.Model != "" {
		model := r.Model
		row.Model = &model
	}
	row.ContainmentAchieved = r.Containment
	row.Reopens = int32(r.Reopens)
	row.WorkspaceDiffBytes = r.DiffBytes
	setMurmurView(&row, r.TaskExit, r.Scores)
	if r.Trace == nil {
		return row, nil
	}
	t := r.Trace.Totals()
	row.Turns, row.InputTokens, row.OutputTokens, row.ToolCalls = int32(t.TotalTurns), t.TotalInputTokens, t.TotalOutputTokens, int32(t.TotalToolCalls)
	ec := r.Trace.EvalCounts()
	row.InferenceRetries, row.ReplayDivergences = int32(ec.Retries), int32(ec.Divergences)
	row.CacheHits, row.CacheMisses = int32(ec.CacheHits), int32(ec.CacheMisses)
	row.ProviderInputTokens, row.ProviderOutputTokens = ec.ProviderInputTokens, ec.ProviderOutputTokens
	if ec.FirstDivergedTurn != nil {
		turn := int32(*ec.FirstDivergedTurn)
		row.ReplayFirstDivergentTurn = &turn
	}
	events := eventRows(c, r.Trace.Lines())
	caseCost(&row, events, r.Trace.Lines(), r.Model, r.Prices)
	return row, events
}

// setStageMillis sets duration_ms, the sum of every stage's time, and the
// <stage>_ms column of each stage that was not skipped. The columns point
// into one array of the case's milliseconds rather than one allocation
// each; every column still has its own value.
func setStageMillis(row *ResultRow, stages []pipeline.StageResult) {
	var total time.Duration
	ms := make([]float64, len(stages))
	cols := stageColumns()
	for i, s := range stages {
		total += s.Duration
		if s.Outcome == pipeline.Skipped {
			continue
		}
		ms[i] = millis(s.Duration)
		for _, col := range cols {
			if col.Stage == s.Stage {
				col.set(row, &ms[i])
			}
		}
	}
	row.DurationMS = millis(total)
}

// eventRows are the case's trace lines as events rows: each line's JSON
// as the writer made it, never parsed back. The rows' turns, tool names
// and JSON strings are each made in one allocation for the case, not one
// per line: a case's events are written and dropped together.
func eventRows(c *pipeline.Case, lines []trace.Line) []EventRow {
	events := make([]EventRow, len(lines))
	turns := make([]int32, len(lines))
	names := make([]string, len(lines))
	text := lineJSON(lines)
	a, variant := attempt(c), VariantOf(c)
	for i, l := range lines {
		e := EventRow{
			RunID: c.RunID, CaseID: c.ID, Epoch: int32(c.Epoch), SessionID: c.SessionID,
			Seq: int32(i), Timestamp: l.Timestamp.UTC(), EventType: l.Type, Attempt: a,
			Variant: variant,
		}
		e.EventJSON, text = text[:len(l.JSON)], text[len(l.JSON):]
		if l.Turn != nil {
			turns[i] = int32(*l.Turn)
			e.Turn = &turns[i]
		}
		if l.ToolName != "" {
			names[i] = l.ToolName
			e.ToolName = &names[i]
		}
		events[i] = e
	}
	return events
}

// lineJSON is every line's JSON, one after the other, as one string.
func lineJSON(lines []trace.Line) string {
	n := 0
	for _, l := range lines {
		n += len(l.JSON)
	}
	var b strings.Builder
	b.Grow(n)
	for _, l := range lines {
		b.Write(l.JSON)
	}
	return b.String()
}

func millis(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
