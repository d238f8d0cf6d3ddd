package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
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
		Type   string          `json:"type"`
		Text   string          `json:"text,omitempty"`
		ID     string          `json:"id,omitempty"`
		Name   string          `json:"name,omitempty"`
		Input  json.RawMessage `json:"input,omitempty"`
		Source *struct {
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
		} `json:"source,omitempty"`
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

// encodeRequest writes the request as murmur's driver does: user text as
// a string (parts when there is an image), an assistant's tool calls alone
// (content null, the input re-encoded with sorted keys), the tool
// parameters as given, the description only when set,
// max_completion_tokens always, stream: true.
func encodeRequest(req *canonicalRequest) ([]byte, error) {
	var msgs []map[string]any
	if req.System != "" {
		msgs = append(msgs, map[string]any{"role": "system", "content": req.System})
	}
	for _, m := range req.Messages {
		text := joinText(m.Content)
		switch m.Role {
		case "user":
			msgs = append(msgs, map[string]any{"role": "user", "content": userContent(m.Content, text)})
		case "tool":
			msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": m.ToolCallID, "content": text})
		case "assistant":
			var calls []map[string]any
			for _, b := range m.Content {
				if b.Type == "tool_call" {
					calls = append(calls, map[string]any{"id": b.ID, "type": "function",
						"function": map[string]any{"name": b.Name, "arguments": inputText(b.Input)}})
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
	body := map[string]any{"model": req.Model, "messages": msgs, "stream": true, "max_completion_tokens": req.MaxTokens}
	if len(req.Tools) > 0 {
		var tools []map[string]any
		for _, t := range req.Tools {
			fn := map[string]any{"name": t.Name, "parameters": t.Parameters}
			if t.Description != "" {
				fn["description"] = t.Description
			}
			tools = append(tools, map[string]any{"type": "function", "function": fn})
		}
		body["tools"] = tools
	}
	return []byte(encode(body)), nil
}

// userContent is the text, or with an image the text and image_url parts.
func userContent(blocks []canonicalBlock, text string) any {
	var parts []map[string]any
	image := false
	for _, b := range blocks {
		switch {
		case b.Type == "text":
			parts = append(parts, map[string]any{"type": "text", "text": b.Text})
		case b.Type == "image" && b.Source != nil:
			parts = append(parts, map[string]any{"type": "image_url",
				"image_url": map[string]any{"url": "data:" + b.Source.MediaType + ";base64," + b.Source.Data}})
			image = true
		}
	}
	if !image {
		return text
	}
	return parts
}

// inputText is a tool call's input re-encoded as serde_json writes it.
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
	n, err := normalize(v)
	if err != nil {
		return string(input)
	}
	return encode(n)
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
// its server-sent-events form, as murmur's driver does (checked by hand,
// docs/providers.md): fields of the wrong type count as absent; with tool
// calls the content is the tool calls alone; the stop reason follows
// finish_reason only; a refusal is dropped; a JSON content string is a
// text block even when empty, a streamed text only when not; stream lines
// other than "data: <chunk that parses>" are skipped.
func decodeResponse(body []byte) (string, bool) {
	if !utf8.Valid(body) {
		return "driver: response body is not UTF-8", true
	}
	var texts []string
	var calls []wireToolCall
	var finish string
	if !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		texts, calls, finish = assembleStream(body)
	} else {
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return "driver: failed to parse OpenAI response JSON: " + err.Error(), true
		}
		choices, _ := get(v, "choices").([]any)
		if len(choices) == 0 {
			return "driver: OpenAI response missing choices[0]", true
		}
		msg := get(choices[0], "message")
		switch c := get(msg, "content").(type) {
		case string:
			texts = []string{c}
		case []any:
			for _, p := range c {
				if t, ok := get(p, "text").(string); ok && get(p, "type") == "text" {
					texts = append(texts, t)
				}
			}
		}
		list, _ := get(msg, "tool_calls").([]any)
		for _, tc := range list {
			var w wireToolCall
			w.ID, _ = get(tc, "id").(string)
			w.Function.Name, _ = get(get(tc, "function"), "name").(string)
			w.Function.Arguments = "{}"
			if a, ok := get(get(tc, "function"), "arguments").(string); ok {
				w.Function.Arguments = a
			}
			calls = append(calls, w)
		}
		finish, _ = get(choices[0], "finish_reason").(string)
	}
	stop := "end_turn"
	switch finish {
	case "", "stop":
	case "tool_calls":
		stop = "tool_call"
	case "length":
		stop = "max_tokens"
	case "content_filter":
		return "OpenAI response blocked by content_filter", true
	default:
		return fmt.Sprintf("driver: unsupported OpenAI finish_reason '%s'", finish), true
	}
	content := []any{}
	if len(calls) > 0 {
		for _, tc := range calls {
			input, err := parseArguments(tc.Function.Arguments)
			if err != nil {
				return "driver: failed to parse OpenAI tool call arguments JSON: " + err.Error(), true
			}
			content = append(content, map[string]any{"id": tc.ID, "input": input, "name": tc.Function.Name, "type": "tool_call"})
		}
	} else {
		for _, t := range texts {
			content = append(content, map[string]any{"text": t, "type": "text"})
		}
	}
	return encode(map[string]any{"content": content, "stop_reason": stop}), false
}

// get is v[key] when v is an object, else nil.
func get(v any, key string) any {
	m, _ := v.(map[string]any)
	return m[key]
}

// parseArguments reads a tool call's arguments as serde_json::from_str
// does: one JSON value, surrounding space allowed, numbers as f64 unless
// they are 64-bit integers.
func parseArguments(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var input any
	if err := dec.Decode(&input); err != nil {
		if err == io.EOF {
			return nil, fmt.Errorf("EOF while parsing a value")
		}
		return nil, err
	}
	if strings.TrimSpace(s[dec.InputOffset():]) != "" {
		return nil, fmt.Errorf("trailing characters")
	}
	return normalize(input)
}

// assembleStream joins the chunks' deltas: content text (none when
// empty), tool calls by index in index order (arguments concatenated), the
// last finish_reason.
func assembleStream(body []byte) ([]string, []wireToolCall, string) {
	var text strings.Builder
	byIndex := map[int]*wireToolCall{}
	var finish string
	for _, line := range strings.Split(string(body), "\n") {
		payload, ok := strings.CutPrefix(strings.TrimSpace(line), "data: ")
		payload = strings.TrimSpace(payload)
		if !ok || payload == "[DONE]" {
			continue
		}
		var chunk any
		if json.Unmarshal([]byte(payload), &chunk) != nil {
			continue
		}
		choices, _ := get(chunk, "choices").([]any)
		if len(choices) == 0 {
			continue
		}
		delta := get(choices[0], "delta")
		if s, ok := get(delta, "content").(string); ok {
			text.WriteString(s)
		}
		list, _ := get(delta, "tool_calls").([]any)
		for _, d := range list {
			i := 0
			if f, ok := get(d, "index").(float64); ok && f >= 0 && f < 1<<20 {
				i = int(f)
			}
			tc := byIndex[i]
			if tc == nil {
				tc = &wireToolCall{Index: i}
				byIndex[i] = tc
			}
			if id, _ := get(d, "id").(string); id != "" {
				tc.ID = id
			}
			fn := get(d, "function")
			if name, _ := get(fn, "name").(string); name != "" {
				tc.Function.Name = name
			}
			args, _ := get(fn, "arguments").(string)
			tc.Function.Arguments += args
		}
		if f, ok := get(choices[0], "finish_reason").(string); ok {
			finish = f
		}
	}
	var texts []string
	if text.Len() > 0 {
		texts = []string{text.String()}
	}
	var calls []wireToolCall
	for _, tc := range byIndex {
		calls = append(calls, *tc)
	}
	sort.Slice(calls, func(a, b int) bool { return calls[a].Index < calls[b].Index })
	return texts, calls, finish
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

// normalize rewrites the numbers of a decoded JSON value as murmur's
// driver prints them: 64-bit integers as they are, other numbers as f64,
// in decimals (at least one fraction digit) from 1e-5 to below 1e16, else
// as shortest digits and an exponent (1e-6, 1e+16); past the f64 range an
// error.
func normalize(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
			return json.Number(strconv.FormatInt(i, 10)), nil
		}
		if u, err := strconv.ParseUint(x.String(), 10, 64); err == nil {
			return json.Number(strconv.FormatUint(u, 10)), nil
		}
		f, err := strconv.ParseFloat(x.String(), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, fmt.Errorf("number out of range")
		}
		mant, exp, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
		e, _ := strconv.Atoi(exp)
		if f != 0 && (e < -5 || e >= 16) {
			if e >= 0 {
				return json.Number(mant + "e+" + strconv.Itoa(e)), nil
			}
			return json.Number(mant + "e" + strconv.Itoa(e)), nil
		}
		d := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(d, ".") {
			d += ".0"
		}
		return json.Number(d), nil
	case map[string]any:
		for k, e := range x {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
	case []any:
		for i, e := range x {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
	}
	return v, nil
}

// canonicalOrSelf is the tool-result's data: the canonical response, or
// for a failure the error response holding the message.
func canonicalOrSelf(data string, failed bool) string {
	if !failed {
		return data
	}
	return encode(map[string]any{"error": data, "stop_reason": "error"})
}
