package sandbox

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// Tool result statuses, as murmur spells them.
const (
	StatusPassed = "passed"
	StatusFailed = "failed"
	StatusError  = "error"
)

// ToolResult is murmur's result of one tool call, as the agent loop and the
// trace see it. Summary and Data may be absent, which murmur distinguishes
// from empty; HasSummary and HasData record presence.
type ToolResult struct {
	Status     string // StatusPassed, StatusFailed or StatusError
	Summary    string
	HasSummary bool
	Data       string
	HasData    bool
	// Metadata holds the [key, value] pairs of the result's "metadata"
	// array in order, duplicates kept; see Meta.
	Metadata [][2]string
}

// Text is what the model sees: the data, else the summary, else
// "tool returned no data".
func (r ToolResult) Text() string {
	switch {
	case r.HasData:
		return r.Data
	case r.HasSummary:
		return r.Summary
	}
	return "tool returned no data"
}

// IsError reports whether the model is told the call failed: any status
// but passed.
func (r ToolResult) IsError() bool { return r.Status != StatusPassed }

// Meta returns the value of the first metadata pair with key, murmur's rule
// for the reserved keys (state_effect, resource_id, continuation_id): the
// first pair decides, and an empty value counts as absent even if a later
// pair has one.
func (r ToolResult) Meta(key string) (string, bool) {
	for _, kv := range r.Metadata {
		if kv[0] == key {
			return kv[1], kv[1] != ""
		}
	}
	return "", false
}

// ParseToolResult turns a finished call into murmur's ToolResult using the
// native-tool rules of murmur-session.md §1.5:
//
//   - stdout, trimmed, is JSON: status is "passed" or "failed" if the
//     "status" field is that string, else "error" (so a bare number is an
//     error); summary is the "summary" string; data is the "data" string, or
//     any other non-null value re-serialized as compact JSON.
//   - stdout is not JSON: status by exit code (0 passed, else error, never
//     failed), summary "tool '<n>' completed", data the trimmed stdout.
//   - stdout is empty: status by exit code, summary
//     "tool '<n>' exited with <code>", data stderr, absent if empty.
//
// murmur's summaries say "native tool"; ours say "tool" because our tools
// are WebAssembly modules and a transcript claiming a native process ran
// would mislead whoever reads it. Invalid UTF-8 is replaced by U+FFFD, as
// Rust's from_utf8_lossy does. A nil out reads as empty output, exit 0.
func ParseToolResult(toolName string, out *Output) ToolResult {
	return parseResult("tool '"+toolName+"'", out)
}

// ParseNativeToolResult is ParseToolResult for a native tool (a bin/<name>
// subprocess), with murmur's own words: "native tool '<n>' completed".
func ParseNativeToolResult(toolName string, out *Output) ToolResult {
	return parseResult("native tool '"+toolName+"'", out)
}

func parseResult(label string, out *Output) ToolResult {
	if out == nil {
		out = &Output{}
	}
	stdout := strings.TrimSpace(lossy(out.Stdout))
	byExit := StatusPassed
	if out.ExitCode != 0 {
		byExit = StatusError
	}
	switch {
	case stdout == "":
		r := ToolResult{Status: byExit, HasSummary: true,
			Summary: label + " exited with " + strconv.FormatUint(uint64(out.ExitCode), 10)}
		if len(out.Stderr) > 0 {
			r.Data, r.HasData = lossy(out.Stderr), true
		}
		return r
	case !json.Valid([]byte(stdout)):
		return ToolResult{Status: byExit, Summary: label + " completed", HasSummary: true,
			Data: stdout, HasData: true}
	}
	return fromJSON(stdout)
}

// fromJSON reads a result from valid JSON.
func fromJSON(s string) ToolResult {
	r := ToolResult{Status: StatusError}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber() // re-serialized data keeps its numbers verbatim
	var v any
	if dec.Decode(&v) != nil {
		return r
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return r
	}
	if st, _ := obj["status"].(string); st == StatusPassed || st == StatusFailed {
		r.Status = st
	}
	r.Summary, r.HasSummary = obj["summary"].(string)
	switch d := obj["data"].(type) {
	case nil:
	case string:
		r.Data, r.HasData = d, true
	default:
		r.Data, r.HasData = compactJSON(d), true
	}
	r.Metadata = metadataPairs(obj["metadata"])
	return r
}

// compactJSON re-serializes a decoded value the way serde_json's to_string
// does: compact, object keys sorted, no HTML escaping.
func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// metadataPairs keeps the [string, string] entries of a metadata array.
func metadataPairs(v any) [][2]string {
	list, _ := v.([]any)
	var out [][2]string
	for _, item := range list {
		pair, _ := item.([]any)
		if len(pair) != 2 {
			continue
		}
		k, kok := pair[0].(string)
		val, vok := pair[1].(string)
		if kok && vok {
			out = append(out, [2]string{k, val})
		}
	}
	return out
}

func lossy(b []byte) string { return strings.ToValidUTF8(string(b), "\uFFFD") }
