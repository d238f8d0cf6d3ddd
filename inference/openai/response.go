package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
)

// answerCall is one tool call of an answer, as the driver reads it.
type answerCall struct {
	id, name, arguments string
}

// answer is the driver's reading of a 2xx body before its content is
// built: the text blocks (none beside tool calls, which the driver drops
// them for), the tool calls, the stop reason and the usage.
type answer struct {
	texts []string
	calls []answerCall
	stop  string
	usage *inference.Usage
}

// Decode maps a Chat Completions answer to the canonical response as
// murmur's murmur-driver-openai does (docs/providers.md, "The built-in
// OpenAI provider against murmur's driver"): a body starting with "{" is a
// completion (its first choice), any other body is read as server-sent
// events; with tool calls the content is the tool calls alone; the stop
// reason follows finish_reason only (stop or none → end_turn, tool_calls →
// tool_call, length → max_tokens); a refusal is dropped. What the driver
// returns status error for (a body that is not UTF-8 or does not parse, no
// choices, content_filter, another finish_reason, tool call arguments that
// are not JSON) is httpapi.Failed with the driver's text. The canonical
// response is then read as the loop reads a driver's: one it refuses (a
// tool call with no id, arguments that are not an object) is E-RUN-007.
// Usage, which the driver does not report, is kept when valid.
func (a *API) Decode(body []byte) (*inference.Response, error) { return Decode(body) }

// Decode is API.Decode without an API: it needs no configuration. The
// answers a model gives most (text, tool calls with object arguments) are
// built directly (direct.go); the rest take the round trip through the
// driver's data that defines them.
func Decode(body []byte) (*inference.Response, error) {
	a, failed := read(body)
	if failed != "" {
		return httpapi.Failed(failed), nil
	}
	if r, ok := direct(a); ok {
		return r, nil
	}
	return roundTrip(a)
}

// roundTrip is the canonical response of a by definition: the driver's
// data (its content built by content, written by httpapi.DriverJSON) read
// back by inference.ParseResponse, as the loop reads a driver's.
func roundTrip(a answer) (*inference.Response, error) {
	content, failed := a.content()
	if failed != "" {
		return httpapi.Failed(failed), nil
	}
	out := map[string]any{"content": content, "stop_reason": a.stop}
	if a.usage != nil {
		out["usage"] = a.usage.Canonical()
	}
	r, err := inference.ParseResponse([]byte(httpapi.DriverJSON(out)))
	if err != nil {
		return nil, errcode.Wrap(errcode.RunAgentLoop, err, "failed to parse driver response")
	}
	if a.usage != nil {
		r.Usage = a.usage // with its cached tokens
	}
	return r, nil
}

// read is the driver's reading of a 2xx body up to its content, or the
// text it fails with. Like the driver, it reads the JSON leniently: a
// field of the wrong type counts as absent.
func read(body []byte) (a answer, failed string) {
	if msg := httpapi.UTF8Error(body); msg != "" {
		return answer{}, "driver: response body is not UTF-8: " + msg
	}
	var finish string
	if !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		a.texts, a.calls, finish = assembleStream(body)
	} else {
		if !json.Valid(body) {
			var top map[string]json.RawMessage
			err := json.Unmarshal(body, &top) // for its message
			return answer{}, "driver: failed to parse OpenAI response JSON: " + err.Error()
		}
		var err error
		if a.texts, a.calls, finish, err = completion(body); err != nil {
			return answer{}, err.Error()
		}
		a.usage = usage(field(body, "usage"))
	}
	switch finish {
	case "", "stop":
		a.stop = inference.StopEndTurn
	case "tool_calls":
		a.stop = inference.StopToolCall
	case "length":
		a.stop = inference.StopMaxTokens
	case "content_filter":
		return answer{}, "OpenAI response blocked by content_filter"
	default:
		return answer{}, fmt.Sprintf("driver: unsupported OpenAI finish_reason '%s'", finish)
	}
	if len(a.calls) > 0 {
		a.texts = nil
	}
	return a, ""
}

// content is the driver's content blocks of a, or the text it fails with
// (tool call arguments that are not JSON).
func (a answer) content() (content []any, failed string) {
	content = []any{}
	for _, tc := range a.calls {
		input, err := arguments(tc.arguments)
		if err != nil {
			return nil, "driver: failed to parse OpenAI tool call arguments JSON: " + err.Error()
		}
		content = append(content, map[string]any{"id": tc.id, "input": input, "name": tc.name, "type": "tool_call"})
	}
	for _, t := range a.texts {
		content = append(content, map[string]any{"text": t, "type": "text"})
	}
	return content, ""
}

// completion reads a JSON chat completion's first choice: its text (a
// string content, even "", or each text part), its tool calls (arguments
// that are not a string count as "{}") and its finish_reason.
func completion(body json.RawMessage) (texts []string, calls []answerCall, finish string, err error) {
	choices := array(field(body, "choices"))
	if len(choices) == 0 {
		return nil, nil, "", fmt.Errorf("driver: OpenAI response missing choices[0]")
	}
	choice := choices[0]
	msg := field(choice, "message")
	content := field(msg, "content")
	if s, ok := str(content); ok {
		texts = []string{s}
	}
	for _, p := range array(content) {
		if t, _ := str(field(p, "type")); t == "text" {
			if s, ok := str(field(p, "text")); ok {
				texts = append(texts, s)
			}
		}
	}
	for _, raw := range array(field(msg, "tool_calls")) {
		fn := field(raw, "function")
		tc := answerCall{arguments: "{}"}
		tc.id, _ = str(field(raw, "id"))
		tc.name, _ = str(field(fn, "name"))
		if s, ok := str(field(fn, "arguments")); ok {
			tc.arguments = s
		}
		calls = append(calls, tc)
	}
	finish, _ = str(field(choice, "finish_reason"))
	return texts, calls, finish, nil
}

// arguments reads a tool call's arguments, a JSON text, as any JSON value
// (the loop then refuses what is not an object), numbers as the driver
// prints them; "" does not parse.
func arguments(s string) (any, error) {
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

// Failure reads an error body: {"error":{"message","type","code"}}, or
// {"error":"..."} as Ollama and llama.cpp send it, for the retry trace.
// A 429 whose code is insufficient_quota is final: the account is out of
// credit. Text is the driver's: "HTTP <status>: <body>", or its complaint
// about a body that is not UTF-8.
func (a *API) Failure(status int, body []byte) httpapi.Failure {
	var e struct {
		Error struct {
			Code json.RawMessage `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	text := fmt.Sprintf("HTTP %d: %s", status, body)
	if msg := httpapi.UTF8Error(body); msg != "" {
		text = "driver: error response body is not UTF-8: " + msg
	}
	return httpapi.Failure{Message: errorMessage(body), Final: string(bytes.TrimSpace(e.Error.Code)) == `"insufficient_quota"`, Text: text}
}

func errorMessage(body []byte) string {
	var obj struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &obj) == nil && len(obj.Error) > 0 {
		var s string
		if json.Unmarshal(obj.Error, &s) == nil {
			return s
		}
		var e struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
		}
		if json.Unmarshal(obj.Error, &e) == nil && (e.Message != "" || e.Type != "") {
			var code string
			_ = json.Unmarshal(e.Code, &code)
			label := e.Type
			if code != "" {
				label = code
			}
			return strings.TrimPrefix(label+": "+e.Message, ": ")
		}
	}
	return httpapi.Snippet(body)
}
