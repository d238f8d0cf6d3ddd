package transcript

import (
	"bytes"
	"encoding/json"
	"time"
)

// Recorder collects one case's entries while its loop runs; Encode gives
// the file. It holds references to what the loop holds anyway (answers'
// content, tool outputs), so it adds little memory. A nil *Recorder records
// nothing. It belongs to one case and is not safe for concurrent use.
type Recorder struct {
	entries []Entry
	attempt int
	// asked is when the pending turn's request went out.
	asked time.Time
}

// New returns an empty Recorder.
func New() *Recorder { return &Recorder{} }

// Start records the start of an attempt: the conversation's first message
// (task), the system prompt, the model and the tools offered.
func (r *Recorder) Start(model, system string, tools []string, task string) {
	if r == nil {
		return
	}
	r.attempt++
	r.entries = append(r.entries, Entry{Kind: KindStart, Attempt: r.attempt, Model: model, System: system, Tools: tools, Task: task})
}

// Asking marks that turn's request going out now.
func (r *Recorder) Asking() {
	if r != nil {
		r.asked = time.Now()
	}
}

// Turn records the model's answer to turn's request (digest): its stop
// reason and content, or failure when it gave none.
func (r *Recorder) Turn(turn int, digest, stop string, content json.RawMessage, failure string, in, out *int64) {
	if r == nil {
		return
	}
	e := Entry{Kind: KindTurn, Attempt: r.attempt, Turn: turn, RequestSHA256: digest, StopReason: stop, Content: content,
		Error: failure, InputTokens: in, OutputTokens: out}
	if !r.asked.IsZero() {
		e.DurationMS = time.Since(r.asked).Milliseconds()
	}
	r.entries = append(r.entries, e)
}

// ToolResult records what tool call id (tool name) returned to the model.
func (r *Recorder) ToolResult(turn int, id, name string, isError bool, output, code string) {
	if r == nil {
		return
	}
	r.entries = append(r.entries, Entry{Kind: KindToolResult, Attempt: r.attempt, Turn: turn, ToolCallID: id, Name: name,
		IsError: isError, Output: output, Code: code})
}

// End records how the session ended and its final answer.
func (r *Recorder) End(exitStatus, result string) {
	if r == nil {
		return
	}
	r.entries = append(r.entries, Entry{Kind: KindEnd, Attempt: r.attempt, ExitStatus: exitStatus, Result: result})
}

// Empty reports whether nothing was recorded.
func (r *Recorder) Empty() bool { return r == nil || len(r.entries) == 0 }

// Encode returns the transcript file: one JSON line per entry.
func (r *Recorder) Encode() []byte {
	if r == nil {
		return nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for i := range r.entries {
		// An Entry holds only encodable values; a RawMessage that is not
		// JSON is the one way to fail, and the loop's content always is.
		if err := enc.Encode(&r.entries[i]); err != nil {
			e := r.entries[i]
			e.Content = nil
			e.Error = "content not JSON: " + err.Error()
			_ = enc.Encode(&e)
		}
	}
	return b.Bytes()
}

// Transcript is what was recorded, as Read would read it back; nil when
// nothing was.
func (r *Recorder) Transcript() *Transcript {
	if r.Empty() {
		return nil
	}
	t := &Transcript{}
	for _, e := range r.entries {
		_ = t.add(e) // the recorder writes known kinds only
	}
	return t
}
