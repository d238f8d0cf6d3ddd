// Package session holds what the Launch stage opens and the Loop stage runs
// on: the session (trace, model, tools, the loop's settings), the tool
// interface and its replies, and how the loop ended it (Outcome). Launch
// produces a *Session (launch.Result), which the executor closes after the
// case's last stage (Close: the session's files finished); Loop and Report
// read it. It is not a stage: a package of its own so that the loop does
// not import the launch stage's machinery, nor the launch the loop's, and
// Report neither.
package session

import (
	"context"
	"encoding/json"

	"go.opentelemetry.io/otel/attribute"

	"github.com/murmur-nexus/murmur-eval/hooks"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/telemetry/genai"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// Session is what Launch opens for a case and Loop runs on: the trace, the
// model, the tools, and the loop's settings. It is a pipeline.Closer: the
// executor closes it once the case's last stage has run.
type Session struct {
	// Dir is the case's session folder, whose appended logs Close checks;
	// "" when there is none to check.
	Dir    string
	Trace  *trace.Writer
	Model  inference.Provider
	Tools  Toolbox
	Config LoopConfig
	// Process is set instead of Model for a transport: process capsule
	// served live: the CLI the loop runs (murmur-session.md §2.2).
	Process *ProcessCLI
	// Hooks delivers the case's lifecycle events to the capsule's hooks;
	// nil when it has none (every event is then a no-op).
	Hooks *hooks.Dispatcher
	// Denied are the wasi:http requests the case's guests were refused,
	// for the loop to trace; nil when nothing records them.
	Denied *Denials
	// Script is set instead of Model for a script capsule (no inference
	// block): Loop runs it once instead of the agent loop.
	Script ScriptRunner
	// Untouched reports that no code murmur-eval does not trust could
	// have written in Dir, so Close skips its checks for what such code
	// plants; nil means it could (the safe default). Launch sets it only
	// where all such code is launched through Tools.
	Untouched func() bool
}

// ScriptRunner runs a script capsule's component once in the case's
// session (murmur:capsule/run), its registry serving the capsule's
// allowlisted WASM tools. The error is the capsule's own failure (a trap,
// its deadline, its memory limit) or the case's context ending.
type ScriptRunner interface {
	RunScript(ctx context.Context) (ScriptOutput, error)
}

// ScriptOutput is what a script run left besides its files: its stdout and
// stderr, as logged.
type ScriptOutput struct {
	Stdout, Stderr []byte
}

// SpanAttributes are the session's counters for the case's span
// (pipeline.SpanAttributer), after the GenAI attributes that mark it the
// capsule's invocation (invoke_agent).
func (s *Session) SpanAttributes() []attribute.KeyValue {
	if s.Trace == nil {
		return nil
	}
	t := s.Trace.Totals()
	return append(genai.AgentAttributes(s.Config.CapsuleName, s.Config.CapsuleVersion), attribute.Int64("murmur_eval.input_tokens", t.TotalInputTokens),
		attribute.Int64("murmur_eval.output_tokens", t.TotalOutputTokens),
		attribute.Int("murmur_eval.turns", t.TotalTurns))
}

// ProcessCLI is the CLI agent of a transport: process session.
type ProcessCLI struct {
	Path string   // inference.command, resolved on PATH
	Env  []string // its whole environment: murmur-eval's own, as murmur's CLI inherits the host's
}

// LoopConfig is what the agent loop needs to know of the capsule, resolved
// by Launch from the manifest.
type LoopConfig struct {
	CapsuleName    string
	CapsuleVersion string
	Model          string
	MaxTurns       int
	MaxTokens      int
	// Provider is the wire API the model is spoken to ("anthropic",
	// "openai"; "" when unknown) and Endpoint is inference.endpoint: the
	// model call spans' gen_ai.provider.name and server.address.
	Provider, Endpoint string
	// SystemPrompt is the resolved prompt (system_prompt, the file's text, or
	// the prompt artifact's skill.md), without the [Capsule] block.
	SystemPrompt string
	// Workdir is the directory the agent and its tools see, as the
	// [Capsule] block names it.
	Workdir string
	// Containment is the achieved containment class, for session_start.
	Containment string
	// DeclaredContainment is the manifest's floor ("advisory" when absent).
	DeclaredContainment string
	// Capabilities, WorkdirExec and EffectiveGrants are session_start's
	// fields of the same names (murmur-session.md §3).
	Capabilities    []string
	WorkdirExec     bool
	EffectiveGrants json.RawMessage // encoded (trace.Grants)
	// IncludeToolOutput is trace.include_tool_output: tool_call events
	// carry the tool's output.
	IncludeToolOutput bool
	// MaxTaskReopens is inference.max_task_reopens: how many times an
	// on-task-end hook may reopen the task (0 disables reopening).
	MaxTaskReopens int
	// ContextMaxTokens is context.max_tokens; compaction runs when it is
	// above zero (transport: http only).
	ContextMaxTokens int64
	// Compaction is inference.compaction, resolved by Launch.
	Compaction CompactionConfig
}

// ToolReply is a tool call's answer as the model will see it.
type ToolReply struct {
	Text    string // data, else summary, else "tool returned no data"
	IsError bool   // status was not "passed"
	Skill   bool   // the "tool" was a skill: its guidance, traced as skill_call
	// Code is the stable code of a dispatch failure (a trap, the tool's
	// deadline, its memory limit, a sandbox refusal), "" otherwise.
	Code string
	// StateEffect and ResourceID are the result's reserved metadata
	// (murmur's state_effect and resource_id), "" when absent.
	StateEffect, ResourceID string
	// Shell is the shell event to trace after the tool_call (Turn unset),
	// for a shell tool that ran.
	Shell *trace.Shell
	// ShellStdout and ShellStderr are a shell call's captured output (each
	// cut at 16 KiB), for on-shell hooks.
	ShellStdout, ShellStderr string
}

// Toolbox runs one case's tools. It belongs to one case and is used from
// that case's goroutine only.
type Toolbox interface {
	// Inventory is the tool list offered to the model, sorted by name.
	Inventory() []inference.Tool
	// Call runs a tool. A tool's own failure (unknown tool, trap, its
	// deadline, bad output) is a reply with IsError set; an error return
	// means the case must stop (its context ended).
	Call(ctx context.Context, name string, input json.RawMessage) (ToolReply, error)
}

// CompactionConfig is inference.compaction as the loop uses it
// (murmur-session.md §1.7).
type CompactionConfig struct {
	Threshold     float64 // default 0.98
	Model         string  // default: inference.model
	SystemPrompt  *string // system_prompt, or system_prompt_file's text; nil when neither
	DumpSummaries bool    // write out/compaction-summaries.jsonl
}
