package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
	"github.com/murmur-nexus/murmur-eval/trace"
)

type (
	wireResponse struct {
		Type       string            `json:"type"`
		Content    []json.RawMessage `json:"content"`
		StopReason *string           `json:"stop_reason"`
		Usage      *wireUsage        `json:"usage"`
	}
	wireUsage struct {
		InputTokens              int64 `json:"input_tokens"`
		OutputTokens             int64 `json:"output_tokens"`
		CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	}
	wireBlock struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		Signature string          `json:"signature"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	}
	wireError struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
)

// Decode maps a Messages response to the canonical form. Text, tool_use
// (as tool_call) and thinking blocks are kept; others (redacted_thinking,
// server tool blocks) are dropped, as murmur's driver drops them. Usage
// counts cached input tokens as input. A stop reason murmur's driver does
// not map becomes a canonical error response, which the loop ends as
// failed.
func (a *API) Decode(body []byte) (*inference.Response, error) { return Decode(body) }

// Decode is API.Decode without an API: it needs no configuration.
func Decode(body []byte) (*inference.Response, error) {
	var w wireResponse
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&w); err != nil {
		return nil, fmt.Errorf("not a Messages response: %w", err)
	}
	if w.Type == "error" {
		return nil, fmt.Errorf("an error object with a success status: %s", errorMessage(body))
	}
	if w.Type != "message" {
		return nil, fmt.Errorf("not a Messages response: type %q, want \"message\"", w.Type)
	}
	var usage *inference.Usage
	if u := w.Usage; u != nil {
		if u.InputTokens < 0 || u.OutputTokens < 0 || u.CacheCreationInputTokens < 0 || u.CacheReadInputTokens < 0 {
			return nil, fmt.Errorf("usage: negative token counts")
		}
		// Saturating: three counts near MaxInt64 wrapped to a small total.
		in := trace.AddTokens(u.InputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens)
		usage = &inference.Usage{InputTokens: in, OutputTokens: u.OutputTokens}
	}
	stop := ""
	if w.StopReason != nil {
		stop = *w.StopReason
	}
	switch stop {
	case "end_turn", "stop_sequence":
		stop = inference.StopEndTurn
	case "tool_use":
		stop = inference.StopToolCall
	case "max_tokens":
		stop = inference.StopMaxTokens
	default:
		if stop == "" {
			stop = "null"
		}
		return inference.NewResponse(inference.StopError, nil, fmt.Sprintf("anthropic stop_reason %s is not supported", stop), usage)
	}
	var blocks []json.RawMessage
	for i, raw := range w.Content {
		var b wireBlock
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, fmt.Errorf("content[%d]: %v", i, err)
		}
		switch b.Type {
		case "text":
			blocks = append(blocks, inference.TextBlock(b.Text))
		case "thinking":
			blocks = append(blocks, inference.ThinkingBlock(b.Thinking, b.Signature))
		case "tool_use":
			in := bytes.TrimSpace(b.Input)
			if len(in) == 0 || string(in) == "null" {
				in = []byte("{}")
			}
			if in[0] != '{' {
				return nil, fmt.Errorf("content[%d]: tool_use input is not a JSON object", i)
			}
			blocks = append(blocks, inference.ToolCallBlock(b.ID, b.Name, in))
		}
	}
	r, err := inference.NewResponse(stop, blocks, "", usage)
	if err != nil {
		return nil, fmt.Errorf("content: %w", err)
	}
	return r, nil
}

// Failure reads an error body: {"type":"error","error":{"type","message"}}.
func (a *API) Failure(status int, body []byte) httpapi.Failure {
	return httpapi.Failure{Message: errorMessage(body)}
}

func errorMessage(body []byte) string {
	var e wireError
	if json.Unmarshal(body, &e) == nil && (e.Error.Type != "" || e.Error.Message != "") {
		return strings.TrimPrefix(e.Error.Type+": "+e.Error.Message, ": ")
	}
	return httpapi.Snippet(body)
}
