package anthropic

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/murmur-nexus/murmur-eval/inference"
)

// Wire blocks, fields in the order Anthropic documents them (the driver
// sorts them; JSON does not care).
type (
	message struct {
		Role    string `json:"role"`
		Content []any  `json:"content"`
	}
	tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	typed struct {
		Type string `json:"type"`
	}
	thinkingParam struct {
		Type         string `json:"type"`
		BudgetTokens int64  `json:"budget_tokens"`
	}
	textBlock struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	thinkingBlock struct {
		Type      string `json:"type"`
		Thinking  string `json:"thinking"`
		Signature string `json:"signature"`
	}
	toolUseBlock struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
	imageBlock struct {
		Type   string      `json:"type"`
		Source imageSource `json:"source"`
	}
	imageSource struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	}
	toolResultBlock struct {
		Type      string      `json:"type"`
		ToolUseID string      `json:"tool_use_id"`
		Content   []textBlock `json:"content"`
	}
)

// Encode maps the canonical request to the Messages request murmur's
// driver sends: model, max_tokens, messages, system (trimmed, when not
// blank), tools (when any), tool_choice {"type":"any"} for params
// tool_choice "required", thinking, every other params key as given
// (temperature, top_p, top_k left out when thinking is on; top_p left out
// beside temperature for Claude 4 and later), and stream: true. The
// driver.config temperature, top_p and top_k count as params the request
// did not set.
func (a *API) Encode(req *inference.Request) ([]byte, error) {
	maxTokens := firstPositive(req.MaxTokens, a.inf.MaxTokens, defaultMaxTokens)
	messages, err := wireMessages(req.Messages, a.thinking.enabled)
	if err != nil {
		return nil, err
	}
	body := map[string]any{
		"model":      cmp.Or(req.Model, a.inf.Model),
		"max_tokens": maxTokens,
		"messages":   messages,
	}
	if s := strings.TrimSpace(req.System); s != "" {
		body["system"] = s
	}
	if len(req.Tools) > 0 {
		body["tools"] = wireTools(req.Tools)
	}
	params, err := a.params(req)
	if err != nil {
		return nil, err
	}
	if string(params["tool_choice"]) == `"required"` {
		body["tool_choice"] = typed{Type: "any"}
	}
	if a.thinking.enabled {
		body["thinking"] = thinkingParam{Type: "enabled", BudgetTokens: a.thinking.budgetFor(maxTokens)}
	}
	_, hasTemp := params["temperature"]
	_, hasTopP := params["top_p"]
	dropTopP := hasTemp && hasTopP && claude4OrLater(req.Model)
	for k, v := range params {
		switch _, set := body[k]; {
		case set, dropTopP && k == "top_p", a.thinking.enabled && isSampling(k):
			continue
		}
		body[k] = v
	}
	body["stream"] = true
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// params is the request's params object with the driver.config sampling
// values it does not set.
func (a *API) params(req *inference.Request) (map[string]json.RawMessage, error) {
	params := map[string]json.RawMessage{}
	if p := bytes.TrimSpace(req.Params); len(p) > 0 && string(p) != "null" {
		if err := json.Unmarshal(p, &params); err != nil {
			return nil, fmt.Errorf("params is not a JSON object: %w", err)
		}
	}
	add := func(k string, v any, set bool) {
		if _, ok := params[k]; set && !ok {
			params[k], _ = json.Marshal(v)
		}
	}
	add("temperature", a.cfg.Temperature, a.cfg.Temperature != nil)
	add("top_p", a.cfg.TopP, a.cfg.TopP != nil)
	add("top_k", a.cfg.TopK, a.cfg.TopK != nil)
	return params, nil
}

// isSampling names the params thinking makes the driver leave out.
func isSampling(k string) bool {
	return k == "temperature" || k == "top_p" || k == "top_k"
}

// wireTools maps tools to {name, input_schema, description}: the
// description trimmed and left out when blank. A tool without parameters
// gets an empty object schema (murmur's loop always sends one).
func wireTools(tools []inference.Tool) []tool {
	out := make([]tool, 0, len(tools))
	for _, t := range tools {
		schema := t.Parameters
		if len(schema) == 0 || string(schema) == "null" {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out = append(out, tool{Name: t.Name, Description: strings.TrimSpace(t.Description), InputSchema: schema})
	}
	return out
}

// wireMessages maps the conversation as the driver does: user and
// assistant messages keep their text, image and tool_call (as tool_use)
// blocks, and their signed thinking blocks when thinking is on; each tool
// message becomes a user message of one tool_result per text block (no
// is_error: the driver sends none).
func wireMessages(msgs []inference.Message, thinkingOn bool) ([]message, error) {
	out := make([]message, 0, len(msgs))
	for _, m := range msgs {
		blocks, err := m.Blocks()
		if err != nil {
			return nil, err
		}
		content := make([]any, 0, len(blocks))
		switch m.Role {
		case "tool":
			for _, b := range blocks {
				if b.Type == "text" {
					content = append(content, toolResultBlock{Type: "tool_result", ToolUseID: m.ToolCallID, Content: []textBlock{{Type: "text", Text: b.Text}}})
				}
			}
			out = append(out, message{Role: "user", Content: content})
		case "user", "assistant":
			for _, b := range blocks {
				if w := wireBlock(b, thinkingOn); w != nil {
					content = append(content, w)
				}
			}
			out = append(out, message{Role: m.Role, Content: content})
		default:
			return nil, fmt.Errorf("message role %q is not user, assistant or tool", m.Role)
		}
	}
	return out, nil
}

// wireBlock is one block of a user or assistant message, nil for one the
// driver leaves out (unknown types, thinking when off or unsigned).
func wireBlock(b inference.ContentBlock, thinkingOn bool) any {
	switch b.Type {
	case "text":
		return textBlock{Type: "text", Text: b.Text}
	case "thinking":
		if thinkingOn && b.Signature != "" {
			return thinkingBlock{Type: "thinking", Thinking: b.Text, Signature: b.Signature}
		}
	case "tool_call":
		return toolUseBlock{Type: "tool_use", ID: b.ID, Name: b.Name, Input: b.Input}
	case "image":
		var src struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
		}
		_ = json.Unmarshal(b.Source, &src)
		return imageBlock{Type: "image", Source: imageSource{Type: cmp.Or(src.Type, "base64"), MediaType: src.MediaType, Data: src.Data}}
	}
	return nil
}

// claude4OrLater is the driver's model family test: the major version is
// the first number after "claude-" (claude-3-opus-…) or the second part
// (claude-opus-4-6); 4 or more is Claude 4+, anything else Claude 3.
func claude4OrLater(model string) bool {
	rest, ok := strings.CutPrefix(strings.TrimSpace(model), "claude-")
	if !ok {
		return false
	}
	parts := strings.SplitN(rest, "-", 3)
	if major, ok := parseU32(parts[0]); ok {
		return major >= 4
	}
	if len(parts) > 1 {
		if major, ok := parseU32(parts[1]); ok {
			return major >= 4
		}
	}
	return false
}

// parseU32 is Rust's str::parse::<u32>: ASCII digits with an optional
// leading '+'.
func parseU32(s string) (uint32, bool) {
	s = strings.TrimPrefix(s, "+")
	if s == "" {
		return 0, false
	}
	var n uint64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
		if n > 1<<32-1 {
			return 0, false
		}
	}
	return uint32(n), true
}

func firstPositive(n ...int) int {
	for _, v := range n {
		if v > 0 {
			return v
		}
	}
	return 0
}
