package loop

import (
	"encoding/json"
	"strconv"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/internal/jsonstr"
)

// serdeRequest is serdeJSON(req) written straight from the fields, with no
// json.Marshal and no second pass over the strings (the system prompt is
// most of a first turn's bytes). The members are written in Request's
// field order, which is sorted, as canonical leaves a sorted object; each
// RawMessage goes through canonical on its own. ok is false when a string
// is not valid UTF-8 or canonical refuses a RawMessage (not compact, not
// JSON, an escape it does not write itself): the caller then takes
// serdeJSON, which also returns json.Marshal's error.
func serdeRequest(req *inference.Request) ([]byte, bool) {
	w := payloadWriter{out: make([]byte, 0, 256+len(req.System))}
	w.out = append(w.out, `{"max_tokens":`...)
	w.out = strconv.AppendInt(w.out, int64(req.MaxTokens), 10)
	w.out = append(w.out, `,"messages":`...)
	writeList(&w, req.Messages, w.message)
	w.out = append(w.out, `,"model":`...)
	w.str(req.Model)
	w.out = append(w.out, `,"params":`...)
	w.raw(req.Params)
	w.out = append(w.out, `,"system":`...)
	w.str(req.System)
	w.out = append(w.out, `,"tools":`...)
	writeList(&w, req.Tools, w.tool)
	w.out = append(w.out, '}')
	return w.out, !w.failed
}

// serdeResponse is serdeJSON(driverResponse(resp)) written as
// serdeRequest writes a request.
func serdeResponse(resp *inference.Response) ([]byte, bool) {
	w := payloadWriter{out: make([]byte, 0, 64+len(resp.Content)+len(resp.Error))}
	w.out = append(w.out, `{"content":`...)
	if len(resp.Content) == 0 {
		w.out = append(w.out, "[]"...)
	} else {
		w.raw(resp.Content)
	}
	if resp.Error != "" {
		w.out = append(w.out, `,"error":`...)
		w.str(resp.Error)
	}
	w.out = append(w.out, `,"stop_reason":`...)
	w.str(resp.StopReason)
	w.out = append(w.out, '}')
	return w.out, !w.failed
}

// payloadWriter writes serde_json's bytes for a request or a response
// into out; failed is set, for good, on what it does not write exactly as
// serdeJSON would.
type payloadWriter struct {
	out    []byte
	failed bool
}

// writeList writes items as a JSON array, each by write, or null when
// items is nil, as json.Marshal writes a slice.
func writeList[T any](w *payloadWriter, items []T, write func(T)) {
	if items == nil {
		w.out = append(w.out, "null"...)
		return
	}
	w.out = append(w.out, '[')
	for k, item := range items {
		if k > 0 {
			w.out = append(w.out, ',')
		}
		write(item)
	}
	w.out = append(w.out, ']')
}

// message writes an inference.Message, fields in its (sorted) order,
// omitempty as json.Marshal omits.
func (w *payloadWriter) message(m inference.Message) {
	w.out = append(w.out, `{"content":`...)
	w.raw(m.Content)
	if m.IsError != nil {
		w.out = append(w.out, `,"is_error":`...)
		w.out = strconv.AppendBool(w.out, *m.IsError)
	}
	w.out = append(w.out, `,"role":`...)
	w.str(m.Role)
	if m.ToolCallID != "" {
		w.out = append(w.out, `,"tool_call_id":`...)
		w.str(m.ToolCallID)
	}
	w.out = append(w.out, '}')
}

// tool writes an inference.Tool as message writes a message.
func (w *payloadWriter) tool(t inference.Tool) {
	w.out = append(w.out, '{')
	if t.Description != "" {
		w.out = append(w.out, `"description":`...)
		w.str(t.Description)
		w.out = append(w.out, ',')
	}
	w.out = append(w.out, `"name":`...)
	w.str(t.Name)
	w.out = append(w.out, `,"parameters":`...)
	w.raw(t.Parameters)
	w.out = append(w.out, '}')
}

// raw writes a RawMessage as canonical writes json.Marshal's copy of it:
// null when nil (an empty one is json.Marshal's error); otherwise
// canonical over m itself, which refuses anything that is not compact
// JSON, so that json.Marshal's copy differs from m only by the HTML
// characters and the line separators it escapes (which canonical writes
// back as characters, or refuses raw).
func (w *payloadWriter) raw(m json.RawMessage) {
	if m == nil {
		w.out = append(w.out, "null"...)
		return
	}
	c := canonWriter{raw: m, out: w.out}
	if !c.value(0) || c.i != len(m) {
		w.failed = true
		return
	}
	w.out = c.out
}

// str writes s quoted as encoding/json does with HTML escaping off
// (internal/jsonstr's NoHTML style), which is what canonical leaves of
// json.Marshal's copy: \" \\ \b \f \n \r \t, \u00XX (lower-case hex) for the
// other control characters, \u2028 and \u2029, everything else as it is.
// Invalid UTF-8 (which json.Marshal writes as \ufffd and serdeJSON then
// decodes) is refused.
func (w *payloadWriter) str(s string) {
	var valid bool
	if w.out, valid = jsonstr.Append(w.out, s, jsonstr.NoHTML); !valid {
		w.failed = true
	}
}
