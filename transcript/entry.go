package transcript

import "encoding/json"

// FileName is the transcript's name in a session folder.
const FileName = "logs/transcript.jsonl"

// The kinds of entry.
const (
	KindStart      = "start"
	KindTurn       = "turn"
	KindToolResult = "tool_result"
	KindEnd        = "end"
)

// Entry is one line of a transcript. Which fields are set depends on Kind;
// the others are omitted from the line.
type Entry struct {
	Kind string `json:"kind"`
	// Attempt counts the task's attempts from 1 (on-task-end hooks may
	// reopen a task: each reopening starts a new conversation).
	Attempt int `json:"attempt,omitempty"`
	// Turn is the attempt's turn, from 0 as in trace.jsonl.
	Turn int `json:"turn"`

	// start
	Model  string   `json:"model,omitempty"`
	System string   `json:"system,omitempty"`
	Tools  []string `json:"tools,omitempty"`
	Task   string   `json:"task,omitempty"`

	// turn: RequestSHA256 is inference.RequestDigest of the request the
	// model answered (the one --record keeps); Content the answer's
	// content blocks verbatim; Error a provider's or driver's failure, or
	// a stop_reason "error" answer's message.
	RequestSHA256 string          `json:"request_sha256,omitempty"`
	StopReason    string          `json:"stop_reason,omitempty"`
	Content       json.RawMessage `json:"content,omitempty"`
	Error         string          `json:"error,omitempty"`
	InputTokens   *int64          `json:"provider_input_tokens,omitempty"`
	OutputTokens  *int64          `json:"provider_output_tokens,omitempty"`
	DurationMS    int64           `json:"duration_ms,omitempty"`

	// tool_result: the answer to the content's tool_call block ToolCallID.
	ToolCallID string `json:"tool_call_id,omitempty"`
	Name       string `json:"name,omitempty"`
	IsError    bool   `json:"is_error,omitempty"`
	Output     string `json:"output,omitempty"`
	Code       string `json:"error_code,omitempty"`

	// end
	ExitStatus string `json:"exit_status,omitempty"`
	Result     string `json:"result,omitempty"`
}
