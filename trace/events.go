package trace

import "encoding/json"

// The event types murmur-eval writes.
const (
	TypeSessionStart = "session_start"
	TypeInference    = "inference"
	TypeToolCall     = "tool_call"
	TypeSkillCall    = "skill_call"
	TypeSessionEnd   = "session_end"
	TypeTaskStart    = "task_start"
	TypeTaskEnd      = "task_end"
)

// SessionStart is written at the start of each agent-loop attempt.
type SessionStart struct {
	CapsuleName         string   `json:"capsule_name"`
	CapsuleVersion      string   `json:"capsule_version"`
	Model               string   `json:"model"`
	MaxTurns            int      `json:"max_turns"`
	Capabilities        []string `json:"capabilities"`
	ToolsDeclared       []string `json:"tools_declared"`
	ContainmentDeclared string   `json:"containment_declared"`
	ContainmentAchieved string   `json:"containment_achieved"`
	WorkdirExec         bool     `json:"workdir_exec"`
	// EffectiveGrants is the encoded Grants object: the same for every
	// case of a run, so encoded once per run (stages/contain).
	EffectiveGrants    json.RawMessage `json:"effective_grants"`
	SystemPromptSource string          `json:"system_prompt_source"`
	SystemPromptSHA256 *string         `json:"system_prompt_sha256"`
	// SystemPrompt is the resolved prompt verbatim, written only with
	// trace.include_tool_output (as murmur writes it).
	SystemPrompt *string `json:"system_prompt,omitempty"`
}

// Inference is written for each model response the loop parsed.
// TokensSource is murmur-eval's addition: "cl100k_base" when the counts are
// murmur's (cl100k_base over the payload and the response), "estimate" when
// they are murmur's len/4 fallback, "provider" for a hook's inference call
// (the provider's usage), "none" for a process-transport turn (0, as murmur
// writes them). ProviderInputTokens and ProviderOutputTokens, also
// additions, are the provider's reported usage of the turn, when it
// reported one; ProviderCachedInputTokens the part of its input the
// provider served from its prompt cache, when it said (the turn is priced
// from them: package pricing).
type Inference struct {
	Turn         int     `json:"turn"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	Decision     string  `json:"decision"`
	ToolName     *string `json:"tool_name"`
	// Origin ("hook:<name>") and Model are set only for a hook's
	// run-inference call, as murmur writes them.
	Origin       string `json:"origin,omitempty"`
	Model        string `json:"model,omitempty"`
	TokensSource string `json:"tokens_source,omitempty"`

	ProviderInputTokens  *int64 `json:"provider_input_tokens,omitempty"`
	ProviderOutputTokens *int64 `json:"provider_output_tokens,omitempty"`
	// ProviderCachedInputTokens is appended last: a trace line's fields keep their order.
	ProviderCachedInputTokens *int64 `json:"provider_cached_input_tokens,omitempty"`
}

// ToolCall is written after each non-skill tool call.
type ToolCall struct {
	Turn        int             `json:"turn"`
	ToolName    string          `json:"tool_name"`
	Input       json.RawMessage `json:"input"`
	InputBytes  int             `json:"input_bytes"`
	Output      *string         `json:"output,omitempty"`
	OutputBytes int             `json:"output_bytes"`
	DurationMS  int64           `json:"duration_ms"`
	Status      string          `json:"status"`
	// StateEffect and ResourceID are the tool's self-declared reserved
	// metadata (state_effect: read/mutate; resource_id: an opaque string),
	// lifted verbatim from its result as murmur does; omitted when absent.
	StateEffect string `json:"state_effect,omitempty"`
	ResourceID  string `json:"resource_id,omitempty"`
	// ErrorCode is murmur-eval's addition: the stable code of a dispatch
	// failure (E-RUN-001 for a trap, a deadline or the memory limit, ...).
	ErrorCode string `json:"error_code,omitempty"`
}

// SessionEnd is written when an attempt ends. Totals are cumulative over the
// session; DurationMS counts from when the trace was opened.
type SessionEnd struct {
	TotalTurns        int    `json:"total_turns"`
	TotalInputTokens  int64  `json:"total_input_tokens"`
	TotalOutputTokens int64  `json:"total_output_tokens"`
	TotalToolCalls    int    `json:"total_tool_calls"`
	TotalShellCalls   int    `json:"total_shell_calls"`
	DurationMS        int64  `json:"duration_ms"`
	ExitStatus        string `json:"exit_status"`
}

// TaskStart is written before each task.
type TaskStart struct {
	TaskID            string `json:"task_id"`
	ContextID         string `json:"context_id"`
	Source            string `json:"source"`
	MessagePartsBytes int    `json:"message_parts_bytes"`
}

// TaskEnd is written after each task.
type TaskEnd struct {
	TaskID       string `json:"task_id"`
	ExitStatus   string `json:"exit_status"`
	DurationMS   int64  `json:"duration_ms"`
	Turns        int    `json:"turns"`
	InputTokens  int64  `json:"input_tokens"`
	OutputTokens int64  `json:"output_tokens"`
	ToolCalls    int    `json:"tool_calls"`
	ShellCalls   int    `json:"shell_calls"`
	ReopenCount  int    `json:"reopen_count"`
}

// SkillCall is written after each skill call; skills are not counted in the
// session's tool totals.
type SkillCall struct {
	Turn        int    `json:"turn"`
	SkillName   string `json:"skill_name"`
	OutputBytes int    `json:"output_bytes"`
	DurationMS  int64  `json:"duration_ms"`
	Status      string `json:"status"`
}

// TypeShell is the event written after the tool_call of a shell tool.
const TypeShell = "shell"

// Shell is written after the tool_call of a shell tool that ran.
// ResourceLimit names the capabilities.resources limit whose signal ended
// the command (cpu_seconds, max_file_size_bytes), when one did.
type Shell struct {
	Turn          int    `json:"turn"`
	Binary        string `json:"binary"`
	Command       string `json:"command"`
	ExitCode      int32  `json:"exit_code"`
	StdoutBytes   int    `json:"stdout_bytes"`
	StderrBytes   int    `json:"stderr_bytes"`
	DurationMS    int64  `json:"duration_ms"`
	ResourceLimit string `json:"resource_limit,omitempty"`
}
