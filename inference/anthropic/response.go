package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// answer is a Messages answer as murmur's driver assembles it, before the
// stop reason is mapped.
type answer struct {
	stop    string // the Anthropic stop reason
	hasStop bool   // false: none was given, which the driver reads as end_turn
	blocks  []json.RawMessage
	usage   *inference.Usage
}

// Canonical blocks as the driver writes them (keys sorted, a thinking
// block's signature always present).
type (
	canonicalText struct {
		Text string `json:"text"`
		Type string `json:"type"`
	}
	canonicalThinking struct {
		Signature string `json:"signature"`
		Text      string `json:"text"`
		Type      string `json:"type"`
	}
	canonicalToolCall struct {
		ID    string          `json:"id"`
		Input json.RawMessage `json:"input"`
		Name  string          `json:"name"`
		Type  string          `json:"type"`
	}
	canonicalAnswer struct {
		Content    []json.RawMessage `json:"content"`
		StopReason string            `json:"stop_reason"`
		Usage      *inference.Usage  `json:"usage,omitempty"`
	}
)

// Decode maps a 2xx answer to the canonical form, as murmur's driver reads
// it. See Decode.
func (a *API) Decode(body []byte) (*inference.Response, error) { return Decode(body) }

// Decode reads a body that starts (after white space) with '{' or '[' as
// one JSON answer, and anything else, an empty body included, as
// server-sent events (what the driver's stream: true asks for), exactly
// as murmur's driver does. Stop reasons end_turn and stop_sequence map to
// end_turn, tool_use to tool_call, max_tokens to max_tokens, none to
// end_turn; any other (refusal, pause_turn, …), a JSON body that does not
// parse or a body that is not UTF-8 ends the session failed with the
// driver's message (httpapi.Failed). The provider's usage is kept (the
// driver reports none; the loop counts tokens itself). An error is an
// answer whose canonical form murmur's loop would refuse (a tool_use
// without an id, an input that is not an object): a harness error, as it
// is with the driver.
func Decode(body []byte) (*inference.Response, error) {
	var ans answer
	if looksJSON(body) {
		var failure string
		ans, failure = decodeJSON(body)
		if failure != "" {
			return httpapi.Failed(failure), nil
		}
	} else {
		ans = decodeSSE(body)
	}
	stop := inference.StopEndTurn
	if ans.hasStop {
		switch ans.stop {
		case "end_turn", "stop_sequence":
		case "tool_use":
			stop = inference.StopToolCall
		case "max_tokens":
			stop = inference.StopMaxTokens
		default:
			return httpapi.Failed("driver: unsupported Anthropic stop_reason '" + ans.stop + "'"), nil
		}
	}
	if ans.blocks == nil {
		ans.blocks = []json.RawMessage{}
	}
	data, err := json.Marshal(canonicalAnswer{Content: ans.blocks, StopReason: stop, Usage: ans.usage.Canonical()})
	if err != nil {
		return nil, fmt.Errorf("encode canonical response: %w", err)
	}
	r, err := inference.ParseResponse(data)
	if err != nil {
		return nil, fmt.Errorf("the driver's canonical response would not parse: %w", err)
	}
	if ans.usage != nil {
		r.Usage = ans.usage // with its cache reads
	}
	return r, nil
}

// looksJSON is the driver's test: the first byte that is not white space
// is '{' or '['.
func looksJSON(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\n\r\f")
	return len(b) > 0 && (b[0] == '{' || b[0] == '[')
}

// decodeJSON reads a JSON answer; failure is the driver's message when it
// would end the turn.
func decodeJSON(body []byte) (ans answer, failure string) {
	if !utf8.Valid(body) {
		return answer{}, "driver: response body is not UTF-8: " + httpapi.UTF8Error(body)
	}
	tree, err := decodeTree(body)
	if err != nil {
		return answer{}, "driver: failed to parse Anthropic response JSON: " + err.Error()
	}
	obj, _ := tree.(map[string]any) // the driver reads nothing from an array
	ans.stop, ans.hasStop = obj["stop_reason"].(string)
	content, _ := obj["content"].([]any)
	for _, c := range content {
		b, _ := c.(map[string]any)
		typ, _ := b["type"].(string)
		switch typ {
		case "text":
			text, _ := b["text"].(string)
			ans.blocks = append(ans.blocks, mustJSON(canonicalText{Text: text, Type: "text"}))
		case "tool_use":
			id, _ := b["id"].(string)
			name, _ := b["name"].(string)
			input := json.RawMessage("{}")
			if v, ok := b["input"]; ok {
				input = json.RawMessage(httpapi.DriverJSON(v))
			}
			ans.blocks = append(ans.blocks, mustJSON(canonicalToolCall{ID: id, Input: input, Name: name, Type: "tool_call"}))
		}
	}
	ans.usage = usageOf(obj["usage"], nil)
	return ans, ""
}

// decodeTree decodes one JSON value as serde_json does, numbers as it
// writes them again (httpapi.SerdeNumbers): a number beyond f64 fails.
func decodeTree(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	end := int(dec.InputOffset())
	if rest := bytes.TrimLeft(data[end:], " \t\n\r"); len(rest) > 0 {
		at := len(data) - len(rest) // serde's position: line and byte column, from 1
		line := bytes.Count(data[:at], []byte("\n")) + 1
		col := at - bytes.LastIndexByte(data[:at], '\n')
		return nil, fmt.Errorf("trailing characters at line %d column %d", line, col)
	}
	return httpapi.SerdeNumbers(tree)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // strings and valid RawMessages only: cannot fail
	}
	return b
}

// usageOf reads a usage object over base: input tokens are input plus
// cache creation plus cache reads, the cache reads also counted apart
// (CachedInputTokens, priced lower). A count that is not a non-negative
// integer makes the usage unknown (the driver ignores usage altogether).
func usageOf(v any, base *inference.Usage) *inference.Usage {
	m, ok := v.(map[string]any)
	if !ok {
		return base
	}
	count := func(k string) (int64, bool, bool) {
		raw, present := m[k]
		if !present {
			return 0, false, true
		}
		n, isNum := raw.(json.Number)
		if !isNum {
			return 0, true, false
		}
		i, err := n.Int64()
		return i, true, err == nil && i >= 0
	}
	in, inSet, ok1 := count("input_tokens")
	cc, ccSet, ok2 := count("cache_creation_input_tokens")
	cr, crSet, ok3 := count("cache_read_input_tokens")
	out, outSet, ok4 := count("output_tokens")
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return nil
	}
	u := inference.Usage{}
	if base != nil {
		u = *base
	}
	if inSet || ccSet || crSet {
		u.InputTokens = trace.AddTokens(in, cc, cr) // saturating
	}
	if crSet {
		u.CachedInputTokens = cr
	}
	if outSet {
		u.OutputTokens = out
	}
	return &u
}

// Failure reads an error body ({"type":"error","error":{"type","message"}})
// for the harness's messages. The session's ending is the driver's: "HTTP
// <status>: <body>", or, for a body that is not UTF-8, the driver's
// message saying so.
func (a *API) Failure(status int, body []byte) httpapi.Failure {
	f := httpapi.Failure{Message: errorMessage(body)}
	// A body cut at the harness's limit may end inside a character: only
	// an invalid sequence before the end is the driver's failure.
	if msg := httpapi.UTF8Error(body); msg != "" && !strings.HasPrefix(msg, "incomplete") {
		f.Text = "driver: error response body is not UTF-8: " + msg
	}
	return f
}

func errorMessage(body []byte) string {
	var e struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && (e.Error.Type != "" || e.Error.Message != "") {
		return strings.TrimPrefix(e.Error.Type+": "+e.Error.Message, ": ")
	}
	return httpapi.Snippet(body)
}
