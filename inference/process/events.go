package process

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Decisions of an assistant turn, as the trace's inference event says them.
const (
	DecisionToolCall = "tool_call"
	DecisionEndTurn  = "end_turn"
)

// Turn is an assistant event that counts as a model turn: it holds
// something besides thinking.
type Turn struct {
	Index    int    // 0-based, counting only the assistant events that are turns
	Decision string // DecisionToolCall when it has a tool_use block, else DecisionEndTurn
	ToolName string // the first tool_use's name, prefix stripped; "" for none
	Content  json.RawMessage
}

// ToolResult is a user event's tool_result paired with the tool_use it
// answers.
type ToolResult struct {
	Turn     int             // 0-based turn whose tool_use it answers
	Name     string          // the tool's name, mcp__claude_bridge__ stripped
	Input    json.RawMessage // the tool_use's input, as the model sent it
	Text     string          // a string content, or its text blocks joined
	IsError  bool
	Duration time.Duration // from the tool_use line to the tool_result line
}

// Result is the CLI's final result event.
type Result struct {
	Subtype string // "success", or the CLI's error subtype
	Text    string
}

// Success reports whether the CLI ended with subtype success.
func (r Result) Success() bool { return r.Subtype == "success" }

// Event is what one stdout line meant: at most one of Turn and Result is
// set; ToolResults holds the tool_result blocks of a user event.
type Event struct {
	Turn        *Turn
	ToolResults []ToolResult
	Result      *Result
}

// Parser reads the CLI's stream-json lines in order. It remembers each
// tool_use by id until its tool_result arrives. A Parser belongs to one run.
type Parser struct {
	turns   int // assistant events counted so far
	pending map[string]pendingUse
}

type pendingUse struct {
	turn  int
	name  string
	input json.RawMessage
	at    time.Time
}

// NewParser returns a Parser for one run.
func NewParser() *Parser { return &Parser{pending: map[string]pendingUse{}} }

// Turns is the number of assistant events counted as turns so far.
func (p *Parser) Turns() int { return p.turns }

type streamLine struct {
	Type    string          `json:"type"`
	Subtype string          `json:"subtype"`
	Result  *string         `json:"result"`
	Message json.RawMessage `json:"message"`
}

type block struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// Line parses one line read at time at. A blank line means nothing. A line
// that is not a JSON object is an error (the run fails); event types other
// than assistant, user and result are ignored, as are tool_results that
// answer no remembered tool_use.
func (p *Parser) Line(line []byte, at time.Time) (Event, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return Event{}, nil
	}
	var l streamLine
	if err := json.Unmarshal(line, &l); err != nil {
		return Event{}, fmt.Errorf("malformed stream-json line from inference subprocess: %w", err)
	}
	switch l.Type {
	case "assistant":
		return p.assistant(l.Message, at)
	case "user":
		return p.user(l.Message, at)
	case "result":
		r := &Result{Subtype: l.Subtype}
		if l.Result != nil {
			r.Text = *l.Result
		}
		return Event{Result: r}, nil
	}
	return Event{}, nil
}

// content decodes a message's content blocks; a message that is absent,
// null or has no content array has none.
func content(msg json.RawMessage) ([]block, json.RawMessage, error) {
	if len(msg) == 0 || string(msg) == "null" {
		return nil, nil, nil
	}
	var m struct {
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		return nil, nil, fmt.Errorf("malformed stream-json message from inference subprocess: %w", err)
	}
	if len(m.Content) == 0 || m.Content[0] != '[' {
		return nil, m.Content, nil
	}
	var blocks []block
	if err := json.Unmarshal(m.Content, &blocks); err != nil {
		return nil, nil, fmt.Errorf("malformed stream-json content from inference subprocess: %w", err)
	}
	return blocks, m.Content, nil
}

func (p *Parser) assistant(msg json.RawMessage, at time.Time) (Event, error) {
	blocks, raw, err := content(msg)
	if err != nil {
		return Event{}, err
	}
	counted := false
	for _, b := range blocks {
		if b.Type != "thinking" && b.Type != "redacted_thinking" {
			counted = true
		}
	}
	if !counted {
		return Event{}, nil
	}
	turn := p.turns
	p.turns++
	t := &Turn{Index: turn, Decision: DecisionEndTurn, Content: raw}
	for _, b := range blocks {
		if b.Type != "tool_use" {
			continue
		}
		name := strings.TrimPrefix(b.Name, ToolPrefix)
		if t.Decision != DecisionToolCall {
			t.Decision, t.ToolName = DecisionToolCall, name
		}
		input := b.Input
		if len(input) == 0 || string(input) == "null" {
			input = json.RawMessage("{}")
		}
		p.pending[b.ID] = pendingUse{turn: turn, name: name, input: input, at: at}
	}
	return Event{Turn: t}, nil
}

func (p *Parser) user(msg json.RawMessage, at time.Time) (Event, error) {
	blocks, _, err := content(msg)
	if err != nil {
		return Event{}, err
	}
	var ev Event
	for _, b := range blocks {
		if b.Type != "tool_result" {
			continue
		}
		use, ok := p.pending[b.ToolUseID]
		if !ok {
			continue
		}
		delete(p.pending, b.ToolUseID)
		ev.ToolResults = append(ev.ToolResults, ToolResult{
			Turn: use.turn, Name: use.name, Input: use.input,
			Text: resultText(b.Content), IsError: b.IsError, Duration: at.Sub(use.at),
		})
	}
	return ev, nil
}

// resultText is a tool_result's output: its string content, or the text
// of its text blocks joined with newlines.
func resultText(c json.RawMessage) string {
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(c, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}
