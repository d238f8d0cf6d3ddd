package inference

import (
	"encoding/json"
	"fmt"
)

// The canonical blocks, fields in sorted order as murmur's drivers write
// them (serde_json without preserve_order).
type (
	canonicalText struct {
		Text string `json:"text"`
		Type string `json:"type"`
	}
	canonicalToolCall struct {
		ID    string          `json:"id"`
		Input json.RawMessage `json:"input"`
		Name  string          `json:"name"`
		Type  string          `json:"type"`
	}
	canonicalThinking struct {
		Signature string `json:"signature,omitempty"`
		Text      string `json:"text"`
		Type      string `json:"type"`
	}
	canonicalResponse struct {
		Content    []json.RawMessage `json:"content,omitempty"`
		Error      string            `json:"error,omitempty"`
		StopReason string            `json:"stop_reason"`
		Usage      *Usage            `json:"usage,omitempty"`
	}
)

// TextBlock is a canonical text block.
func TextBlock(text string) json.RawMessage {
	return mustMarshal(canonicalText{Text: text, Type: "text"})
}

// ToolCallBlock is a canonical tool_call block; input must be a JSON object
// (NewResponse refuses anything else).
func ToolCallBlock(id, name string, input json.RawMessage) json.RawMessage {
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	if !json.Valid(input) {
		input = json.RawMessage(`"invalid"`) // refused by NewResponse
	}
	return mustMarshal(canonicalToolCall{ID: id, Input: input, Name: name, Type: "tool_call"})
}

// ThinkingBlock is a canonical thinking block.
func ThinkingBlock(text, signature string) json.RawMessage {
	return mustMarshal(canonicalThinking{Signature: signature, Text: text, Type: "thinking"})
}

// NewResponse builds a canonical response as a driver would return it and
// parses it back, so a response from an HTTP API is exactly what the same
// bytes in a recording would give. Raw is those bytes, one JSON line.
func NewResponse(stop string, blocks []json.RawMessage, errMsg string, usage *Usage) (*Response, error) {
	data, err := json.Marshal(canonicalResponse{Content: blocks, Error: errMsg, StopReason: stop, Usage: usage})
	if err != nil {
		return nil, fmt.Errorf("encode canonical response: %w", err)
	}
	return ParseResponse(data)
}

func mustMarshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only strings and valid RawMessage: cannot fail
	}
	return b
}
