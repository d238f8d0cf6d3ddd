package inference

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Stop reasons of murmur's canonical response.
const (
	StopEndTurn   = "end_turn"
	StopToolCall  = "tool_call"
	StopMaxTokens = "max_tokens"
	StopError     = "error"
)

// Response is a model response in murmur's canonical form.
type Response struct {
	StopReason string
	Content    json.RawMessage // the content array verbatim ("[]" when absent)
	Blocks     []Block         // Content decoded
	Error      string          // the message of a stop_reason "error" response
	Usage      *Usage          // provider-reported usage, nil when unknown
	Raw        []byte          // the response as received, for token estimates
	// DriverFailed is set when the driver component's status was not
	// passed: the loop ends the session failed with "error: " + Error and
	// writes no inference event, as murmur does (murmur-session.md §1.4).
	DriverFailed bool
}

// Usage is the provider's own token count for one turn.
// CachedInputTokens is the part of InputTokens the provider served from
// its prompt cache (OpenAI's prompt_tokens_details.cached_tokens,
// Anthropic's cache_read_input_tokens), priced apart (package pricing).
type Usage struct {
	InputTokens       int64 `json:"input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
	CachedInputTokens int64 `json:"cached_input_tokens,omitempty"`
}

// Canonical is u as murmur's drivers write it in a canonical response:
// input and output only, so a built-in provider's bytes stay the
// driver's; nil for nil. The cached count travels beside the bytes
// (Response.Usage, a recording's provider usage).
func (u *Usage) Canonical() *Usage {
	if u == nil {
		return nil
	}
	return &Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
}

// Block is one content block. Text is set for text blocks; ID, Name and
// Input for tool_call blocks. Other types (thinking, image) keep only Type.
type Block struct {
	Type  string
	Text  string
	ID    string
	Name  string
	Input json.RawMessage // a JSON object; "{}" when the model sent none
}

type wireResponse struct {
	StopReason *string           `json:"stop_reason"`
	Content    []json.RawMessage `json:"content"`
	Error      json.RawMessage   `json:"error"`
	Usage      *Usage            `json:"usage"`
}

type wireBlock struct {
	Type  *string         `json:"type"`
	Text  json.RawMessage `json:"text"`
	ID    json.RawMessage `json:"id"`
	Name  json.RawMessage `json:"name"`
	Input json.RawMessage `json:"input"`
}

// ParseResponse decodes and checks one canonical response. It is the parser
// of untrusted model output: it never panics, and every error says which
// field is wrong. Text outside a known stop reason is accepted here; the
// loop decides what an unknown stop reason means, as murmur does.
func ParseResponse(data []byte) (*Response, error) {
	var w wireResponse
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&w); err != nil {
		return nil, fmt.Errorf("response is not a JSON object: %w", err)
	}
	// dec.More is not enough: it treats a stray '}' or ']' as the end.
	if len(bytes.TrimSpace(data[dec.InputOffset():])) > 0 {
		return nil, fmt.Errorf("response has data after its JSON object")
	}
	if w.StopReason == nil {
		return nil, fmt.Errorf("response has no stop_reason string")
	}
	r := &Response{StopReason: *w.StopReason, Usage: w.Usage, Raw: data, Content: json.RawMessage("[]")}
	if w.Usage != nil && (w.Usage.InputTokens < 0 || w.Usage.OutputTokens < 0 || w.Usage.CachedInputTokens < 0) {
		return nil, fmt.Errorf("usage: token counts must not be negative")
	}
	if len(w.Error) > 0 && string(w.Error) != "null" {
		if err := json.Unmarshal(w.Error, &r.Error); err != nil {
			r.Error = string(w.Error) // an error object: keep its JSON text
		}
	}
	if w.Content != nil {
		content, err := json.Marshal(w.Content)
		if err != nil {
			return nil, fmt.Errorf("content: %w", err)
		}
		r.Content = content
	}
	for i, raw := range w.Content {
		b, err := parseBlock(raw)
		if err != nil {
			return nil, fmt.Errorf("content[%d]: %w", i, err)
		}
		r.Blocks = append(r.Blocks, b)
	}
	return r, nil
}

func parseBlock(raw json.RawMessage) (Block, error) {
	var w wireBlock
	if err := json.Unmarshal(raw, &w); err != nil {
		return Block{}, fmt.Errorf("not a JSON object: %w", err)
	}
	if w.Type == nil {
		return Block{}, fmt.Errorf("missing type")
	}
	b := Block{Type: *w.Type}
	switch b.Type {
	case "text":
		if err := json.Unmarshal(w.Text, &b.Text); err != nil {
			return Block{}, fmt.Errorf("text block: text must be a string")
		}
	case "tool_call":
		if err := json.Unmarshal(w.ID, &b.ID); err != nil || strings.TrimSpace(b.ID) == "" {
			return Block{}, fmt.Errorf("tool_call block: id must be a non-blank string")
		}
		if err := json.Unmarshal(w.Name, &b.Name); err != nil || strings.TrimSpace(b.Name) == "" {
			return Block{}, fmt.Errorf("tool_call block %q: name must be a non-blank string", b.ID)
		}
		b.Input = json.RawMessage("{}")
		if in := bytes.TrimSpace(w.Input); len(in) > 0 && string(in) != "null" {
			if in[0] != '{' {
				return Block{}, fmt.Errorf("tool_call block %q: input must be a JSON object", b.ID)
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, in); err != nil {
				return Block{}, fmt.Errorf("tool_call block %q: input: %w", b.ID, err)
			}
			b.Input = compact.Bytes()
		}
	}
	return b, nil
}

// ToolCalls returns the tool_call blocks, in order.
func (r *Response) ToolCalls() []Block {
	var calls []Block
	for _, b := range r.Blocks {
		if b.Type == "tool_call" {
			calls = append(calls, b)
		}
	}
	return calls
}

// Text joins the text blocks with "\n", as murmur builds the final answer.
func (r *Response) Text() string {
	var parts []string
	for _, b := range r.Blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}
