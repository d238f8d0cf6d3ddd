package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/murmur-nexus/murmur-eval/internal/jsonstr"
)

// Line is one written trace line with the fields events.parquet indexes.
type Line struct {
	Type      string
	Timestamp time.Time
	Turn      *int   // nil for events without a turn
	ToolName  string // "" for events without a tool
	JSON      []byte // the line, without its newline
	// Inference is the event of an inference line (nil for other lines),
	// so that its tokens are priced without parsing the line back.
	Inference *Inference
}

// Writer appends events to one session's trace.jsonl and keeps totals the
// way murmur does: each inference line adds a turn and its tokens, each
// tool_call a tool call. A Writer belongs to one case and is not safe for
// concurrent use.
type Writer struct {
	f *os.File
	// path is the trace's name, which Close checks still names f.
	path string
	// unwritten are the lines (each with its newline) not yet in the file,
	// and unwrittenBytes their size: they go out together, in one write,
	// once they reach traceBuffer, and at Close. The lines are kept for
	// Lines anyway, so they are written from there, not copied into a
	// buffer first.
	unwritten      [][]byte
	unwrittenBytes int
	sessionID      string
	quotedID       []byte // sessionID as a JSON string
	// scratch is where enc encodes each event before its line is made.
	scratch *bytes.Buffer
	enc     *json.Encoder
	opened  time.Time
	now     func() time.Time
	lines   []Line
	totals  SessionEnd
	counts  EvalCounts
	started bool // a session_start was written
	ended   bool // a session_end was written
	// lastEnd and lastEndAt are the last session_end written, taskExit
	// the last task_end's exit status: what scorers read of a trace,
	// kept as written so nobody parses the lines back.
	lastEnd   SessionEnd
	lastEndAt time.Time
	taskExit  string
}

// traceBuffer is how many bytes of lines a Writer lets wait before it
// writes them (issue 19: a 32 KiB buffer a session was 28 MiB with 1,024
// sessions waiting, and a 4 KiB one 5% of a waiting case's allocations,
// BENCHMARKS.md).
const traceBuffer = 4 << 10

// Create opens path for appending (creating it) and returns a Writer for the
// session. now is the clock (time.Now in production).
func Create(path, sessionID string, now func() time.Time) (*Writer, error) {
	f, err := openAppend(path)
	if err != nil {
		return nil, err
	}
	// A trivial session's whole trace (2-3 KiB) goes out in one write.
	quoted, _ := json.Marshal(sessionID) // a string always encodes
	return &Writer{f: f, path: path, sessionID: sessionID, quotedID: quoted, opened: now(), now: now}, nil
}

// SessionStart writes a session_start event.
func (w *Writer) SessionStart(e SessionStart) error {
	w.started = true
	return w.write(TypeSessionStart, nil, "", e)
}

// Inference writes an inference event and adds it to the totals.
func (w *Writer) Inference(e Inference) error {
	w.totals.TotalTurns++
	w.totals.TotalInputTokens = AddTokens(w.totals.TotalInputTokens, e.InputTokens)
	w.totals.TotalOutputTokens = AddTokens(w.totals.TotalOutputTokens, e.OutputTokens)
	addProvider(&w.counts.ProviderInputTokens, e.ProviderInputTokens)
	addProvider(&w.counts.ProviderOutputTokens, e.ProviderOutputTokens)
	name := ""
	if e.ToolName != nil {
		name = *e.ToolName
	}
	if err := w.write(TypeInference, &e.Turn, name, e); err != nil {
		return err
	}
	w.lines[len(w.lines)-1].Inference = &e
	return nil
}

// ToolCall writes a tool_call event and counts it.
func (w *Writer) ToolCall(e ToolCall) error {
	w.totals.TotalToolCalls++
	return w.write(TypeToolCall, &e.Turn, e.ToolName, e)
}

// SkillCall writes a skill_call event; it does not count as a tool call.
func (w *Writer) SkillCall(e SkillCall) error { return w.write(TypeSkillCall, &e.Turn, e.SkillName, e) }

// Shell writes a shell event and counts it as a shell call.
func (w *Writer) Shell(e Shell) error {
	w.totals.TotalShellCalls++
	return w.write(TypeShell, &e.Turn, "", e)
}

// SessionEnd writes a session_end event with the running totals.
func (w *Writer) SessionEnd(exitStatus string) error {
	w.ended = true
	ts := w.now()
	e := w.totals
	e.ExitStatus = exitStatus
	e.DurationMS = ts.Sub(w.opened).Milliseconds()
	w.lastEnd, w.lastEndAt = e, ts
	return w.writeAt(ts, TypeSessionEnd, nil, "", e)
}

// LastSessionEnd returns the last session_end written and its time; ok is
// false when none was.
func (w *Writer) LastSessionEnd() (e SessionEnd, at time.Time, ok bool) {
	return w.lastEnd, w.lastEndAt, w.ended
}

// TaskExit is the last task_end's exit status, "" when none was written.
func (w *Writer) TaskExit() string { return w.taskExit }

// TaskStart writes a task_start event.
func (w *Writer) TaskStart(e TaskStart) error { return w.write(TypeTaskStart, nil, "", e) }

// TaskEnd writes a task_end event.
func (w *Writer) TaskEnd(e TaskEnd) error {
	w.taskExit = e.ExitStatus
	return w.write(TypeTaskEnd, nil, "", e)
}

// Totals returns the running session totals (ExitStatus and DurationMS unset).
func (w *Writer) Totals() SessionEnd { return w.totals }

// Started reports whether a session_start was written; Ended whether a
// session_end was. Report uses them for murmur's fallback session_end.
func (w *Writer) Started() bool { return w.started }

// Ended reports whether a session_end was written.
func (w *Writer) Ended() bool { return w.ended }

// Lines returns the lines written so far. The slice must not be modified.
func (w *Writer) Lines() []Line { return w.lines }

// Close flushes the file, makes sure the trace's name still holds it
// (reclaim), and closes it.
func (w *Writer) Close() error { return w.close(true) }

// CloseUnreached flushes the file and closes it without Close's check
// of its name: for a session whose folder no code murmur-eval does not
// trust was handed (session.Session.Untouched), where the name can only
// hold the file Create opened.
func (w *Writer) CloseUnreached() error { return w.close(false) }

// close flushes the file, reclaims the trace's name when reclaim is set,
// and closes the file; the first error wins.
func (w *Writer) close(reclaim bool) error {
	ferr := w.flush()
	if ferr == nil && reclaim {
		ferr = w.reclaim()
	}
	if err := w.f.Close(); ferr == nil {
		ferr = err
	}
	return ferr
}

// write marshals the common fields followed by the event's own fields. The
// event's JSON object is spliced after the header so its field order is kept.
func (w *Writer) write(typ string, turn *int, tool string, event any) error {
	return w.writeAt(w.now(), typ, turn, tool, event)
}

func (w *Writer) writeAt(ts time.Time, typ string, turn *int, tool string, event any) error {
	// The event is encoded into the writer's scratch buffer (json.Encoder
	// writes what json.Marshal returns, and a newline), and the line is
	// then made at its exact size: one allocation a line, which is kept
	// (Lines), instead of three (BENCHMARKS.md, issue 19, session 8).
	if w.enc == nil {
		w.scratch = new(bytes.Buffer)
		w.enc = json.NewEncoder(w.scratch)
	}
	w.scratch.Reset()
	if err := w.enc.Encode(event); err != nil {
		return fmt.Errorf("trace: encode %s: %w", typ, err)
	}
	body := bytes.TrimSuffix(w.scratch.Bytes(), []byte("\n"))
	line := make([]byte, 0, len(`{"event_type":,"session_id":,"timestamp":}`)+len(typ)+8+len(w.quotedID)+20+len(body))
	line = appendJSONString(append(line, `{"event_type":`...), typ)
	line = append(append(line, `,"session_id":`...), w.quotedID...)
	line = strconv.AppendInt(append(line, `,"timestamp":`...), ts.UnixMilli(), 10)
	if len(body) > 2 { // not "{}"
		line = append(append(line, ','), body[1:]...)
	} else {
		line = append(line, '}')
	}
	if w.scratch.Cap() > maxScratch {
		w.scratch, w.enc = nil, nil // one large event does not stay held for the session
	}
	line = append(line, '\n')
	w.unwritten = append(w.unwritten, line)
	if w.unwrittenBytes += len(line); w.unwrittenBytes >= traceBuffer {
		if err := w.flush(); err != nil {
			return fmt.Errorf("trace: write %s: %w", typ, err)
		}
	}
	var tp *int
	if turn != nil {
		t := *turn
		tp = &t
	}
	w.lines = append(w.lines, Line{Type: typ, Timestamp: ts, Turn: tp, ToolName: tool, JSON: line[: len(line)-1 : len(line)-1]})
	return nil
}

// maxScratch is the largest encoding buffer a Writer keeps between events.
const maxScratch = 64 << 10

// appendJSONString appends s as json.Marshal writes it (internal/jsonstr).
func appendJSONString(b []byte, s string) []byte {
	b, _ = jsonstr.Append(b, s, jsonstr.Marshal)
	return b
}

// flush writes the unwritten lines, in one system call where the platform
// has writev.
func (w *Writer) flush() error {
	if len(w.unwritten) == 0 {
		return nil
	}
	err := writeLines(w.f, w.unwritten)
	clear(w.unwritten)
	w.unwritten, w.unwrittenBytes = w.unwritten[:0], 0
	return err
}

// addProvider adds n, when set, to the provider total *sum (nil until a
// first turn reports one).
func addProvider(sum **int64, n *int64) {
	if n == nil {
		return
	}
	v := *n
	if *sum != nil {
		v = AddTokens(**sum, v)
	}
	*sum = &v
}
