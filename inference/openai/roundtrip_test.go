package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
)

// decodeRoundTrip is Decode as it was before the direct path (commit
// f0fa957), kept as the reference FuzzDecodeMatchesRoundTrip holds Decode
// to: the driver's data built as a map, written by httpapi.DriverJSON and
// read back by inference.ParseResponse. Its helpers are the ones Decode
// no longer uses (refStr unescapes with encoding/json, refUsage decodes
// into a struct); field, array and the scanners under them are shared,
// unchanged.
func decodeRoundTrip(body []byte) (*inference.Response, error) {
	content, stop, failed, u := refDecode(body)
	if failed != "" {
		return httpapi.Failed(failed), nil
	}
	out := map[string]any{"content": content, "stop_reason": stop}
	if u != nil {
		out["usage"] = u
	}
	r, err := inference.ParseResponse([]byte(httpapi.DriverJSON(out)))
	if err != nil {
		return nil, errcode.Wrap(errcode.RunAgentLoop, err, "failed to parse driver response")
	}
	if u != nil {
		withCached := *u
		withCached.CachedInputTokens = refCached(field(body, "usage"))
		r.Usage = &withCached
	}
	return r, nil
}

// refCached is usage.prompt_tokens_details.cached_tokens read with
// encoding/json (keys exact, the last of a repeated key kept).
func refCached(raw json.RawMessage) int64 {
	var usage, details map[string]json.RawMessage
	if json.Unmarshal(raw, &usage) != nil || json.Unmarshal(usage["prompt_tokens_details"], &details) != nil {
		return 0
	}
	n, err := strconv.ParseInt(string(details["cached_tokens"]), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

func refDecode(body []byte) (content []any, stop, failed string, u *inference.Usage) {
	if msg := httpapi.UTF8Error(body); msg != "" {
		return nil, "", "driver: response body is not UTF-8: " + msg, nil
	}
	var texts []string
	var calls []answerCall
	var finish string
	if !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		texts, calls, finish = refAssembleStream(body)
	} else {
		if !json.Valid(body) {
			var top map[string]json.RawMessage
			err := json.Unmarshal(body, &top) // for its message
			return nil, "", "driver: failed to parse OpenAI response JSON: " + err.Error(), nil
		}
		var err error
		if texts, calls, finish, err = refCompletion(body); err != nil {
			return nil, "", err.Error(), nil
		}
		u = refUsage(field(body, "usage"))
	}
	switch finish {
	case "", "stop":
		stop = inference.StopEndTurn
	case "tool_calls":
		stop = inference.StopToolCall
	case "length":
		stop = inference.StopMaxTokens
	case "content_filter":
		return nil, "", "OpenAI response blocked by content_filter", nil
	default:
		return nil, "", fmt.Sprintf("driver: unsupported OpenAI finish_reason '%s'", finish), nil
	}
	content = []any{}
	for _, tc := range calls {
		input, err := refArguments(tc.arguments)
		if err != nil {
			return nil, "", "driver: failed to parse OpenAI tool call arguments JSON: " + err.Error(), nil
		}
		content = append(content, map[string]any{"id": tc.id, "input": input, "name": tc.name, "type": "tool_call"})
	}
	if len(calls) > 0 {
		return content, stop, "", u
	}
	for _, t := range texts {
		content = append(content, map[string]any{"text": t, "type": "text"})
	}
	return content, stop, "", u
}

func refCompletion(body json.RawMessage) (texts []string, calls []answerCall, finish string, err error) {
	choices := array(field(body, "choices"))
	if len(choices) == 0 {
		return nil, nil, "", fmt.Errorf("driver: OpenAI response missing choices[0]")
	}
	choice := choices[0]
	msg := field(choice, "message")
	content := field(msg, "content")
	if s, ok := refStr(content); ok {
		texts = []string{s}
	}
	for _, p := range array(content) {
		if t, _ := refStr(field(p, "type")); t == "text" {
			if s, ok := refStr(field(p, "text")); ok {
				texts = append(texts, s)
			}
		}
	}
	for _, raw := range array(field(msg, "tool_calls")) {
		fn := field(raw, "function")
		tc := answerCall{arguments: "{}"}
		tc.id, _ = refStr(field(raw, "id"))
		tc.name, _ = refStr(field(fn, "name"))
		if s, ok := refStr(field(fn, "arguments")); ok {
			tc.arguments = s
		}
		calls = append(calls, tc)
	}
	finish, _ = refStr(field(choice, "finish_reason"))
	return texts, calls, finish, nil
}

func refAssembleStream(body []byte) ([]string, []answerCall, string) {
	var text strings.Builder
	calls := map[uint64]*answerCall{}
	var finish string
	for line := range bytes.SplitSeq(body, []byte("\n")) {
		payload, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data: "))
		payload = bytes.TrimSpace(payload)
		if !ok || string(payload) == "[DONE]" || !json.Valid(payload) {
			continue
		}
		choices := array(field(payload, "choices"))
		if len(choices) == 0 {
			continue
		}
		delta := field(choices[0], "delta")
		if s, ok := refStr(field(delta, "content")); ok {
			text.WriteString(s)
		}
		for _, d := range array(field(delta, "tool_calls")) {
			var i uint64
			if n, err := strconv.ParseUint(string(field(d, "index")), 10, 64); err == nil {
				i = n
			}
			tc := calls[i]
			if tc == nil {
				tc = &answerCall{}
				calls[i] = tc
			}
			fn := field(d, "function")
			if s, _ := refStr(field(d, "id")); s != "" {
				tc.id = s
			}
			if s, _ := refStr(field(fn, "name")); s != "" {
				tc.name = s
			}
			if s, ok := refStr(field(fn, "arguments")); ok {
				tc.arguments += s
			}
		}
		if s, ok := refStr(field(choices[0], "finish_reason")); ok {
			finish = s
		}
	}
	var texts []string
	if text.Len() > 0 {
		texts = []string{text.String()}
	}
	var out []answerCall
	for _, i := range slices.Sorted(maps.Keys(calls)) {
		out = append(out, *calls[i])
	}
	return texts, out, finish
}

func refArguments(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("EOF while parsing a value")
		}
		return nil, err
	}
	if strings.TrimSpace(s[dec.InputOffset():]) != "" {
		return nil, fmt.Errorf("trailing characters")
	}
	return httpapi.SerdeNumbers(v)
}

func refUsage(raw json.RawMessage) *inference.Usage {
	var u struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &u) != nil || u.PromptTokens < 0 || u.CompletionTokens < 0 || string(raw) == "null" {
		return nil
	}
	return &inference.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
}

func refStr(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' || stringEnd(raw) != len(raw) {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
