package reports

import "github.com/murmur-nexus/murmur-eval/pipeline"

// Results of ScoreRow.Result, as murmur writes them in eval.jsonl.
const (
	ResultPass = "pass"
	ResultFail = "fail"
)

// ScoreRow is one row of scores.parquet: one scorer's verdict on one case
// (one epoch of it). Only scored cases (status passed or failed) have rows.
// Like ResultRow, the parquet tags are a contract (docs/output-columns.md):
// never rename or reorder a column, only append.
type ScoreRow struct {
	RunID      string  `parquet:"run_id,dict"`
	CaseID     string  `parquet:"case_id"`
	Epoch      int32   `parquet:"epoch"`
	SessionID  string  `parquet:"session_id"`
	Scorer     string  `parquet:"scorer,dict"`
	ScorerType string  `parquet:"scorer_type,dict"`
	Result     string  `parquet:"result,dict"` // ResultPass or ResultFail
	Score      float64 `parquet:"score"`       // in [0, 1]
	Reason     string  `parquet:"reason"`
	Attempt    int32   `parquet:"attempt"` // the case's attempt (1-based)

	// The judge's columns, set for llm_judge scorers only: the judge
	// model, its tokens and wall time over all its calls for the score
	// (samples and a repair), the samples asked and their spread (the
	// largest score minus the smallest).
	JudgeModel        *string  `parquet:"judge_model,dict"`
	JudgeInputTokens  *int64   `parquet:"judge_input_tokens"`
	JudgeOutputTokens *int64   `parquet:"judge_output_tokens"`
	JudgeLatencyMS    *float64 `parquet:"judge_latency_ms"`
	JudgeSamples      *int32   `parquet:"judge_samples"`
	JudgeSpread       *float64 `parquet:"judge_spread"`
	// JudgeSplit: the samples disagreed on the verdict.
	JudgeSplit *bool `parquet:"judge_split"`
	// Variant is the variant of the scored case (ResultRow.Variant).
	Variant *string `parquet:"variant,dict"`
	// JudgeCostUSD is the judge's tokens priced at judge_model's price
	// (--prices); null without a judge or a price.
	JudgeCostUSD *float64 `parquet:"judge_cost_usd"`
}

// ScoresFromCase returns the score rows of a finished case, in scoring
// order; none when the case was not scored.
func ScoresFromCase(r CaseRun) []ScoreRow {
	c := r.Case
	rows := make([]ScoreRow, len(r.Scores))
	for i, s := range r.Scores {
		rows[i] = ScoreRow{
			RunID: c.RunID, CaseID: c.ID, Epoch: int32(c.Epoch), SessionID: c.SessionID,
			Scorer: s.Name, ScorerType: s.Type, Result: s.Result(), Score: s.Value, Reason: s.Reason, Attempt: attempt(c),
			Variant: VariantOf(c),
		}
		if j := s.Judge; j != nil {
			model, in, out, ms, n, spread := j.Model, j.InputTokens, j.OutputTokens, j.LatencyMS, int32(j.Samples), j.Spread
			rows[i].JudgeModel, rows[i].JudgeInputTokens, rows[i].JudgeOutputTokens = &model, &in, &out
			split := j.Split
			rows[i].JudgeLatencyMS, rows[i].JudgeSamples, rows[i].JudgeSpread, rows[i].JudgeSplit = &ms, &n, &spread, &split
			rows[i].JudgeCostUSD = judgeCost(&rows[i], r.Prices)
		}
	}
	return rows
}

// Passed reports whether the row's scorer passed.
func (r ScoreRow) Passed() bool { return r.Result == ResultPass }

// attempt is a case's attempt number, 1 for a case built without one.
func attempt(c *pipeline.Case) int32 { return int32(max(1, c.Attempt)) }
