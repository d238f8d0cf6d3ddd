package reports

import (
	"time"

	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// Status values of ResultRow.Status: pipeline's statuses (defined there
// once), as strings. They are part of the Parquet contract: dashboards
// filter on these exact strings.
const (
	StatusPassed    = string(pipeline.StatusPassed)
	StatusFailed    = string(pipeline.StatusFailed)
	StatusError     = string(pipeline.StatusError)
	StatusTimeout   = string(pipeline.StatusTimeout)
	StatusCancelled = string(pipeline.StatusCancelled)
	StatusSkipped   = string(pipeline.StatusSkipped)
)

// Exit status values of ResultRow.ExitStatus, as the agent loop reports
// them (trace's, defined there once).
const (
	ExitOK              = trace.ExitOK
	ExitFailed          = trace.ExitFailed
	ExitMaxTurnsReached = trace.ExitMaxTurnsReached
)

// ResultRow is one row of results.parquet: the outcome of one case (one epoch
// of it). The parquet tags are a contract that dashboards query; never rename
// or reorder a column, only append (docs/output-columns.md lists them).
//
// Nullable columns are pointer fields: nil is written as null, and a pointer to
// a zero value ("" or 0) is written as that value, so the two never mix.
// Columns with few distinct values per file are dictionary encoded.
type ResultRow struct {
	RunID     string `parquet:"run_id,dict"`
	CaseID    string `parquet:"case_id"`
	Epoch     int32  `parquet:"epoch"`
	SessionID string `parquet:"session_id"`
	Status    string `parquet:"status,dict"`

	// ExitStatus is nil when the agent loop never ended a session.
	ExitStatus   *string `parquet:"exit_status,dict"`
	ErrorCode    *string `parquet:"error_code,dict"`
	ErrorStage   *string `parquet:"error_stage,dict"`
	ErrorMessage *string `parquet:"error_message"`

	Turns        int32 `parquet:"turns"`
	InputTokens  int64 `parquet:"input_tokens"`
	OutputTokens int64 `parquet:"output_tokens"`
	ToolCalls    int32 `parquet:"tool_calls"`

	// StartedAt is stored as milliseconds since the Unix epoch, UTC; finer
	// precision is truncated.
	StartedAt  time.Time `parquet:"started_at,timestamp(millisecond:utc)"`
	DurationMS float64   `parquet:"duration_ms"`

	// Wall milliseconds per stage, measured by the executor; nil when the
	// stage did not run.
	ResolveMS *float64 `parquet:"resolve_ms"`
	VerifyMS  *float64 `parquet:"verify_ms"`
	StageMS   *float64 `parquet:"stage_ms"`
	ContainMS *float64 `parquet:"contain_ms"`
	LaunchMS  *float64 `parquet:"launch_ms"`
	LoopMS    *float64 `parquet:"loop_ms"`
	ReportMS  *float64 `parquet:"report_ms"`

	CapsuleName    string  `parquet:"capsule_name,dict"`
	CapsuleVersion string  `parquet:"capsule_version,dict"`
	Model          *string `parquet:"model,dict"`
	// SessionDir is relative to the run folder.
	SessionDir string `parquet:"session_dir"`

	// InferenceRetries counts the model requests retried (429, 5xx,
	// connection failures); ReplayDivergences the replayed turns whose
	// request differed from the recording, the first of them at
	// ReplayFirstDivergentTurn (nil when none).
	InferenceRetries         int32  `parquet:"inference_retries"`
	ReplayDivergences        int32  `parquet:"replay_divergences"`
	ReplayFirstDivergentTurn *int32 `parquet:"replay_first_divergent_turn"`
	// ContainmentAchieved is the class the case's sandbox had (advisory,
	// scoped); "" when the Contain stage did not run.
	ContainmentAchieved string `parquet:"containment_achieved,dict"`
	// Attempt is 1-based: a case that ended in error and was retried
	// (--retries) has a row per attempt; only the highest counts.
	Attempt int32 `parquet:"attempt"`
	// Reopens is how many times on-task-end hooks reopened the case's task
	// (task_end's reopen_count; 0 without hooks).
	Reopens int32 `parquet:"reopens"`
	// WorkspaceDiffBytes is the size of the case's out/workspace.diff
	// (before any cut): what the agent changed in its workspace; nil when
	// the case has no workspace or no diff was written.
	WorkspaceDiffBytes *int64 `parquet:"workspace_diff_bytes"`
	// ProviderInputTokens and ProviderOutputTokens are the provider's own
	// usage summed over the case's turns, where input_tokens and
	// output_tokens are murmur's cl100k_base counts; null when no turn
	// reported one (a process transport, a recording without usage).
	ProviderInputTokens  *int64 `parquet:"provider_input_tokens"`
	ProviderOutputTokens *int64 `parquet:"provider_output_tokens"`
	// MurmurOverall is the overall verdict murmur's own rules would give
	// the case (pass, fail, no_scores); null when murmur would have scored
	// a case that was not scored here, or there is nothing to compare.
	// MurmurDifference is why murmur's verdict differs from status (a
	// scoring.Diff* key), null when it does not (docs/murmur-compatibility.md).
	MurmurOverall    *string `parquet:"murmur_overall,dict"`
	MurmurDifference *string `parquet:"murmur_difference,dict"`
	// CacheHits counts the case's requests (model turns and judge
	// requests) the model-turn cache (--cache) answered, CacheMisses those
	// it sent on to the model; both 0 without --cache.
	CacheHits   int32 `parquet:"cache_hits"`
	CacheMisses int32 `parquet:"cache_misses"`
	// Variant is the name of the run's variant the case ran (--models: the
	// model's name; --variants: the file's name); null in a run without
	// variants.
	Variant *string `parquet:"variant,dict"`
	// CostUSD is the case's model turns priced (--prices, docs/cost.md):
	// the sum over the turns whose model has a price; null when none has.
	// CostEstimated: some turn was priced from murmur's own token counts,
	// its provider having reported no usage.
	CostUSD       *float64 `parquet:"cost_usd"`
	CostEstimated bool     `parquet:"cost_estimated"`
}

// EventRow is one row of events.parquet: one line of one case's trace.jsonl.
// Like ResultRow, its parquet tags are a contract; pointer fields are the
// nullable columns.
type EventRow struct {
	RunID     string `parquet:"run_id,dict"`
	CaseID    string `parquet:"case_id"`
	Epoch     int32  `parquet:"epoch"`
	SessionID string `parquet:"session_id"`
	// Seq is the 0-based position of the event in its case's trace.
	Seq int32 `parquet:"seq"`
	// Timestamp is stored as milliseconds since the Unix epoch, UTC.
	Timestamp time.Time `parquet:"timestamp,timestamp(millisecond:utc)"`
	EventType string    `parquet:"event_type,dict"`
	Turn      *int32    `parquet:"turn"`
	ToolName  *string   `parquet:"tool_name,dict"`
	// EventJSON is the verbatim trace line, so nothing of the trace is lost.
	EventJSON string `parquet:"event_json"`
	// Attempt is the attempt of the case the event belongs to (1-based).
	Attempt int32 `parquet:"attempt"`
	// Variant is the variant of the event's case (ResultRow.Variant).
	Variant *string `parquet:"variant,dict"`
	// CostUSD is an inference event's turn priced (a loop's turn or a
	// hook's call); null on other events and on a turn without a price.
	CostUSD *float64 `parquet:"cost_usd"`
}
