// Package process runs murmur's `transport: process` inference: a CLI agent
// (Claude Code) as a subprocess speaking stream-json (murmur-session.md
// §2.2). It builds the CLI's argv and its one stdin line, parses the events
// it prints, runs it under a wall-clock cap in its own process group, and
// serves the capsule's tools to it over the Claude Bridge, a loopback
// JSON-RPC server (MCP's streamable HTTP, JSON responses only), so that
// every tool call runs in the case's sandbox.
//
// The package knows nothing of the trace or the stage graph: stages/loop
// turns its events into murmur's trace and exit rules.
package process

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// Dialects of the process transport: the command's base name "codex"
// selects codex's, anything else Claude Code's (murmur-formats.md §1.5).
const (
	DialectClaude = "claude"
	DialectCodex  = "codex"
)

// DialectOf is the dialect murmur picks for a command.
func DialectOf(command string) string {
	if filepath.Base(command) == "codex" {
		return DialectCodex
	}
	return DialectClaude
}

// BridgeServer is the name the bridge is registered under in the CLI's
// MCP configuration; the CLI calls its tools mcp__claude_bridge__<name>.
const BridgeServer = "claude_bridge"

// ToolPrefix is what the CLI puts before a bridged tool's name.
const ToolPrefix = "mcp__" + BridgeServer + "__"

// ClaudeOptions is what the Claude dialect's argv is built from.
type ClaudeOptions struct {
	Model string // omitted when empty (the CLI's default model)
	// Tools are the capsule's tool names, bare; empty runs the CLI with no
	// tools at all (--tools "").
	Tools []string
	// MCPConfig is the bridge's --mcp-config JSON (Bridge.MCPConfig);
	// required when Tools is not empty.
	MCPConfig string
	// SystemPrompt is murmur's: the two notices and the capsule's prompt.
	SystemPrompt string
}

// ClaudeArgs is murmur's argv for Claude Code, without the program name:
// stream-json both ways, the model, either no tools or only the bridge's
// (with permission prompts off: the sandbox is the bridge's), then the
// system prompt.
func ClaudeArgs(o ClaudeOptions) []string {
	args := []string{"--print", "--output-format", "stream-json", "--verbose", "--input-format", "stream-json"}
	if o.Model != "" {
		args = append(args, "--model", o.Model)
	}
	if len(o.Tools) == 0 {
		args = append(args, "--tools", "")
	} else {
		names := make([]string, len(o.Tools))
		for i, t := range o.Tools {
			names[i] = ToolPrefix + t
		}
		args = append(args, "--tools", strings.Join(names, ","),
			"--mcp-config", o.MCPConfig, "--strict-mcp-config",
			"--permission-mode", "bypassPermissions")
	}
	return append(args, "--system-prompt", o.SystemPrompt)
}

// UserLine is the one line written to the CLI's stdin before it is closed:
// the task as a user message.
func UserLine(task string) []byte {
	type text struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type message struct {
		Role    string `json:"role"`
		Content []text `json:"content"`
	}
	b, _ := json.Marshal(struct {
		Type    string  `json:"type"`
		Message message `json:"message"`
	}{"user", message{"user", []text{{"text", task}}}})
	return append(b, '\n')
}
