package openai

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
)

type (
	message struct {
		Role       string     `json:"role"`
		Content    any        `json:"content"` // string, parts, or null
		ToolCalls  []toolCall `json:"tool_calls,omitempty"`
		ToolCallID string     `json:"tool_call_id,omitempty"`
	}
	part struct {
		Type     string    `json:"type"`
		Text     string    `json:"text,omitempty"`
		ImageURL *imageURL `json:"image_url,omitempty"`
	}
	imageURL struct {
		URL string `json:"url"`
	}
	toolCall struct {
		ID       string   `json:"id"`
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	tool struct {
		Type     string      `json:"type"`
		Function functionDef `json:"function"`
	}
	functionDef struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	imageSource struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		URL       string `json:"url"`
	}
)

// Encode maps the canonical request to a Chat Completions body.
func (a *API) Encode(req *inference.Request) ([]byte, error) {
	body := map[string]any{
		"model":              cmp.Or(req.Model, a.inf.Model),
		a.cfg.MaxTokensField: firstPositive(req.MaxTokens, a.inf.MaxTokens, defaultMaxTokens),
	}
	var msgs []message
	if req.System != "" {
		msgs = append(msgs, message{Role: "system", Content: req.System})
	}
	for _, m := range req.Messages {
		blocks, err := m.Blocks()
		if err != nil {
			return nil, err
		}
		switch m.Role {
		case "user":
			msgs = append(msgs, message{Role: "user", Content: userContent(blocks)})
		case "assistant":
			msgs = append(msgs, assistantMessage(blocks))
		case "tool":
			msgs = append(msgs, message{Role: "tool", ToolCallID: m.ToolCallID, Content: joinText(blocks)})
		default:
			return nil, fmt.Errorf("message role %q is not user, assistant or tool", m.Role)
		}
	}
	body["messages"] = msgs
	if len(req.Tools) > 0 {
		tools := make([]tool, len(req.Tools))
		for i, t := range req.Tools {
			params := t.Parameters
			if len(params) == 0 {
				params = json.RawMessage("null") // sent as murmur's driver sends it
			}
			tools[i] = tool{Type: "function", Function: functionDef{Name: t.Name, Description: t.Description, Parameters: params}}
		}
		body["tools"] = tools
	}
	if tc := req.ToolChoice(); tc != "" {
		body["tool_choice"] = tc
	}
	for k, v := range map[string]any{"temperature": a.cfg.Temperature, "top_p": a.cfg.TopP, "seed": a.cfg.Seed, "parallel_tool_calls": a.cfg.ParallelToolCalls} {
		if !isNilPtr(v) {
			body[k] = v
		}
	}
	// Without HTML escaping, as the driver writes its body.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// userContent is a plain string for text, the usual shape every compatible
// server reads; parts only when there is an image.
func userContent(blocks []inference.ContentBlock) any {
	var parts []part
	images := false
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, part{Type: "text", Text: b.Text})
		case "image":
			var src imageSource
			_ = json.Unmarshal(b.Source, &src)
			u := src.URL
			if src.Type == "base64" {
				u = "data:" + src.MediaType + ";base64," + src.Data
			}
			parts = append(parts, part{Type: "image_url", ImageURL: &imageURL{URL: u}})
			images = true
		}
	}
	if !images {
		return joinText(blocks)
	}
	return parts
}

// assistantMessage repeats the model's turn as murmur's driver does: with
// tool calls, the calls alone (content null; the input as a JSON string,
// keys sorted), else the text. Thinking blocks have no place in Chat
// Completions and are left out.
func assistantMessage(blocks []inference.ContentBlock) message {
	m := message{Role: "assistant"}
	for _, b := range blocks {
		if b.Type == "tool_call" {
			m.ToolCalls = append(m.ToolCalls, toolCall{ID: b.ID, Type: "function", Function: function{Name: b.Name, Arguments: inputText(b.Input)}})
		}
	}
	if len(m.ToolCalls) == 0 {
		m.Content = joinText(blocks)
	}
	return m
}

// inputText is a tool call's input as the driver writes it back: "{}"
// when absent, else re-encoded with sorted keys and no HTML escaping.
func inputText(input json.RawMessage) string {
	if len(input) == 0 {
		return "{}"
	}
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return string(input)
	}
	n, err := httpapi.SerdeNumbers(v)
	if err != nil {
		return string(input)
	}
	return httpapi.DriverJSON(n)
}

func joinText(blocks []inference.ContentBlock) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func isNilPtr(v any) bool {
	switch p := v.(type) {
	case *float64:
		return p == nil
	case *int64:
		return p == nil
	case *bool:
		return p == nil
	}
	return v == nil
}

func firstPositive(n ...int) int {
	for _, v := range n {
		if v > 0 {
			return v
		}
	}
	return 0
}
