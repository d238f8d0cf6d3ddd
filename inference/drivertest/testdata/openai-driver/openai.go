package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

type (
	canonicalRequest struct {
		Model     string             `json:"model"`
		MaxTokens int64              `json:"max_tokens"`
		Messages  []canonicalMessage `json:"messages"`
		Tools     []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"tools"`
		System string `json:"system"`
	}
	canonicalMessage struct {
		Role       string           `json:"role"`
		ToolCallID string           `json:"tool_call_id"`
		Content    []canonicalBlock `json:"content"`
	}
	canonicalBlock struct {
		Type  string          `json:"type"`
		Text  string          `json:"text,omitempty"`
		ID    string          `json:"id,omitempty"`
		Name  string          `json:"name,omitempty"`
		Input json.RawMessage `json:"input,omitempty"`
	}
	wireToolCall struct {
		Index    int    `json:"index"`
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	wireMessage struct {
		Content   json.RawMessage `json:"content"`
		ToolCalls []wireToolCall  `json:"tool_calls"`
	}
	wireChoice struct {
		Message      wireMessage `json:"message"`
		Delta        wireMessage `json:"delta"`
		FinishReason *string     `json:"finish_reason"`
	}
)

// drive runs one turn: the canonical request in, the canonical response
// out (failed when stop_reason is error, data then the message).
func drive(input []byte, env map[string]string) (string, bool) {
	var req canonicalRequest
	if err := json.Unmarshal(input, &req); err != nil {
		return "driver: invalid canonical request: " + err.Error(), true
	}
	endpoint := strings.TrimRight(env["MURMUR_INFERENCE_ENDPOINT"], "/")
	if endpoint == "" {
		return "driver: MURMUR_INFERENCE_ENDPOINT is not set", true
	}
	if req.Model == "" {
		req.Model = env["MURMUR_INFERENCE_MODEL"]
	}
	body, err := encodeRequest(&req)
	if err != nil {
		return "driver: " + err.Error(), true
	}
	headers := [][2]string{{"content-type", "application/json"}}
	if key := env["MURMUR_INFERENCE_API_KEY"]; key != "" {
		headers = append(headers, [2]string{"authorization", "Bearer " + key})
	}
	status, resp, err := post(endpoint+"/chat/completions", headers, body)
	if err != nil {
		return err.Error(), true
	}
	if status >= 400 { // murmur's driver reads a 1xx-3xx body as an answer
		return fmt.Sprintf("HTTP %d: %s", status, resp), true
	}
	return decodeResponse(resp)
}

func encodeRequest(req *canonicalRequest) ([]byte, error) {
	var msgs []map[string]any
	if req.System != "" {
		msgs = append(msgs, map[string]any{"role": "system", "content": req.System})
	}
	for _, m := range req.Messages {
		text := joinText(m.Content)
		switch m.Role {
		case "user":
			msgs = append(msgs, map[string]any{"role": "user", "content": text})
		case "tool":
			msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": m.ToolCallID, "content": text})
		case "assistant":
			var calls []map[string]any
			for _, b := range m.Content {
				if b.Type == "tool_call" {
					args := string(b.Input)
					if args == "" {
						args = "{}"
					}
					calls = append(calls, map[string]any{"id": b.ID, "type": "function",
						"function": map[string]any{"name": b.Name, "arguments": args}})
				}
			}
			if len(calls) > 0 {
				msgs = append(msgs, map[string]any{"role": "assistant", "content": nil, "tool_calls": calls})
			} else {
				msgs = append(msgs, map[string]any{"role": "assistant", "content": text})
			}
		default:
			return nil, fmt.Errorf("unsupported message role %q", m.Role)
		}
	}
	body := map[string]any{"model": req.Model, "messages": msgs, "stream": true}
	if req.MaxTokens > 0 {
		body["max_completion_tokens"] = req.MaxTokens
	}
	if len(req.Tools) > 0 {
		var tools []map[string]any
		for _, t := range req.Tools {
			tools = append(tools, map[string]any{"type": "function",
				"function": map[string]any{"name": t.Name, "description": t.Description, "parameters": t.Parameters}})
		}
		body["tools"] = tools
	}
	return json.Marshal(body)
}

func joinText(blocks []canonicalBlock) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// decodeResponse reads a chat completion (a body starting "{"), or else
// its server-sent-events form, as murmur's driver does: with tool calls the
// content is the tool calls alone; the stop reason follows finish_reason
// only; a refusal is dropped; stream lines that do not parse are skipped.
func decodeResponse(body []byte) (string, bool) {
	var texts []string
	var calls []wireToolCall
	var finish *string
	if !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		texts, calls, finish = assembleStream(body)
	} else {
		var w struct {
			Choices []wireChoice `json:"choices"`
		}
		if err := json.Unmarshal(body, &w); err != nil {
			return "driver: failed to parse OpenAI response JSON: " + err.Error(), true
		}
		if len(w.Choices) == 0 {
			return "driver: OpenAI response missing choices[0]", true
		}
		c := w.Choices[0]
		texts, calls, finish = contentTexts(c.Message.Content), c.Message.ToolCalls, c.FinishReason
	}
	stop := "end_turn"
	if finish != nil {
		switch *finish {
		case "stop":
		case "tool_calls":
			stop = "tool_call"
		case "length":
			stop = "max_tokens"
		case "content_filter":
			return "OpenAI response blocked by content_filter", true
		default:
			return fmt.Sprintf("driver: unsupported OpenAI finish_reason '%s'", *finish), true
		}
	}
	content := []any{}
	if len(calls) > 0 {
		for _, tc := range calls {
			dec := json.NewDecoder(strings.NewReader(tc.Function.Arguments))
			dec.UseNumber()
			var input any
			if err := dec.Decode(&input); err != nil {
				return "driver: failed to parse OpenAI tool call arguments JSON: " + err.Error(), true
			}
			content = append(content, map[string]any{"id": tc.ID, "input": normalize(input), "name": tc.Function.Name, "type": "tool_call"})
		}
	} else {
		for _, t := range texts {
			if t != "" {
				content = append(content, map[string]any{"text": t, "type": "text"})
			}
		}
	}
	return encode(map[string]any{"content": content, "stop_reason": stop}), false
}

// contentTexts reads message.content: a string, null, or text parts.
func contentTexts(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var parts []canonicalBlock
	_ = json.Unmarshal(raw, &parts)
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return texts
}

// assembleStream joins the chunks' deltas: content text, tool calls by
// index (arguments concatenated), the last finish_reason.
func assembleStream(body []byte) ([]string, []wireToolCall, *string) {
	var text strings.Builder
	var calls []wireToolCall
	var finish *string
	for _, line := range strings.Split(string(body), "\n") {
		payload, ok := strings.CutPrefix(strings.TrimSpace(line), "data:")
		payload = strings.TrimSpace(payload)
		if !ok || payload == "[DONE]" {
			continue
		}
		var chunk struct {
			Choices []wireChoice `json:"choices"`
		}
		if json.Unmarshal([]byte(payload), &chunk) != nil || len(chunk.Choices) == 0 {
			continue
		}
		c := chunk.Choices[0]
		var s string
		if json.Unmarshal(c.Delta.Content, &s) == nil {
			text.WriteString(s)
		}
		for _, d := range c.Delta.ToolCalls {
			for len(calls) <= d.Index {
				calls = append(calls, wireToolCall{Index: len(calls)})
			}
			tc := &calls[d.Index]
			if d.ID != "" {
				tc.ID = d.ID
			}
			if d.Function.Name != "" {
				tc.Function.Name = d.Function.Name
			}
			tc.Function.Arguments += d.Function.Arguments
		}
		if c.FinishReason != nil {
			finish = c.FinishReason
		}
	}
	return []string{text.String()}, calls, finish
}

// encode writes v as murmur's driver does: keys sorted, no HTML escaping.
func encode(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return unescapeLineSeparators(strings.TrimSuffix(b.String(), "\n"))
}

// unescapeLineSeparators writes U+2028 and U+2029 raw, as serde_json does
// (encoding/json always escapes them).
func unescapeLineSeparators(s string) string {
	if !strings.Contains(s, `\u202`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			if strings.HasPrefix(s[i:], `\u2028`) || strings.HasPrefix(s[i:], `\u2029`) {
				b.WriteString(map[byte]string{'8': "\u2028", '9': "\u2029"}[s[i+5]])
				i += 5
				continue
			}
			b.WriteString(s[i : i+2])
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// normalize rewrites the numbers of a decoded JSON value as serde_json
// prints them: integers as they are, other numbers as shortest floats.
func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		if _, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
			return x
		}
		if _, err := strconv.ParseUint(x.String(), 10, 64); err == nil {
			return x
		}
		f, err := strconv.ParseFloat(x.String(), 64)
		if err != nil {
			return x
		}
		if f == math.Trunc(f) && math.Abs(f) < 1e16 {
			return json.Number(strconv.FormatFloat(f, 'f', 1, 64))
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
	}
	return v
}

// canonicalOrSelf is the tool-result's data: the canonical response, or
// for a failure the error response holding the message.
func canonicalOrSelf(data string, failed bool) string {
	if !failed {
		return data
	}
	return encode(map[string]any{"error": data, "stop_reason": "error"})
}
