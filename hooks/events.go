package hooks

// ABI is the version of the hook ABI this package speaks; every event a
// hook reads carries it as "abi" (docs/hooks.md).
const ABI = 1

// envelope is what a hook reads on stdin: one lifecycle event.
type envelope struct {
	ABI     int    `json:"abi"`
	Event   string `json:"event"`
	Payload any    `json:"payload"`
}

// The payloads are murmur's lifecycle records (murmur-session.md §4.2)
// with snake_case field names. Optional fields are null when absent.

// StageEvent is on-stage's payload.
type StageEvent struct {
	ShellAllow []string `json:"shell_allow"`
}

// SessionStart is on-session-start's payload (murmur's session-context).
type SessionStart struct {
	CapsuleName    string   `json:"capsule_name"`
	CapsuleVersion string   `json:"capsule_version"`
	SessionID      string   `json:"session_id"`
	Model          string   `json:"model"`
	Capabilities   []string `json:"capabilities"`
}

// TaskStart is on-task-start's payload.
type TaskStart struct {
	TaskID     string `json:"task_id"`
	ContextID  string `json:"context_id"`
	Source     string `json:"source"`
	InputBytes int64  `json:"input_bytes"`
}

// Inference is on-inference's payload. Prompt is the request's messages,
// Output the response's content and Tools the tool inventory, each as JSON
// text, as murmur passes them.
type Inference struct {
	Turn         int     `json:"turn"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	Decision     string  `json:"decision"`
	ToolName     *string `json:"tool_name"`
	Prompt       *string `json:"prompt"`
	Output       *string `json:"output"`
	Tools        *string `json:"tools"`
}

// ToolCall is on-tool-call's payload: every tool, skill and shell call,
// dispatch errors included (status "error").
type ToolCall struct {
	Turn        int    `json:"turn"`
	ToolName    string `json:"tool_name"`
	InputBytes  int64  `json:"input_bytes"`
	OutputBytes int64  `json:"output_bytes"`
	DurationMS  int64  `json:"duration_ms"`
	Status      string `json:"status"`
}

// Shell is on-shell's payload; Command is cut to 200 characters.
type Shell struct {
	Turn        int    `json:"turn"`
	Binary      string `json:"binary"`
	Command     string `json:"command"`
	ExitCode    int32  `json:"exit_code"`
	Stdout      string `json:"stdout"`
	Stderr      string `json:"stderr"`
	StdoutBytes int64  `json:"stdout_bytes"`
	StderrBytes int64  `json:"stderr_bytes"`
	DurationMS  int64  `json:"duration_ms"`
}

// Message is murmur's hook message: a role and a content string. For the
// conversation handed to on-compaction, content is the JSON text of the
// message's block array, and a tool message is wrapped in a marker object
// (see ToolMarker) that must come back unchanged for the message to be kept.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ToolMarker is the key that marks a wrapped tool message:
// {"__murmur_tool_msg__": true, "tool_call_id": ..., "is_error": ..., "body": [...]}.
const ToolMarker = "__murmur_tool_msg__"

// Compaction is on-compaction's payload.
type Compaction struct {
	Messages      []Message `json:"messages"`
	SessionTokens int64     `json:"session_tokens"`
	Threshold     float64   `json:"threshold"`
	Model         *string   `json:"model"`
	SystemPrompt  *string   `json:"system_prompt"`
}

// TaskEnd is on-task-end's payload; ExitStatus is "ok" or "failed".
type TaskEnd struct {
	TaskID     string `json:"task_id"`
	ExitStatus string `json:"exit_status"`
}

// SessionEnd is on-session-end's payload: the dispatcher's own totals over
// the case (murmur-session.md §4.2).
type SessionEnd struct {
	TotalTurns        int64  `json:"total_turns"`
	TotalInputTokens  int64  `json:"total_input_tokens"`
	TotalOutputTokens int64  `json:"total_output_tokens"`
	TotalToolCalls    int64  `json:"total_tool_calls"`
	TotalShellCalls   int64  `json:"total_shell_calls"`
	DurationMS        int64  `json:"duration_ms"`
	ExitStatus        string `json:"exit_status"`
}
