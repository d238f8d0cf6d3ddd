package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/murmur-nexus/murmur-eval/internal/termtext"
)

// TextOptions say how WriteText prints: Colour adds ANSI colours (only for
// a terminal); MaxText bounds each text printed (a task, an answer, a tool
// input or output), the rest named by its size and file.
type TextOptions struct {
	Colour  bool
	MaxText int
}

// DefaultMaxText is how much of each text WriteText prints by default.
const DefaultMaxText = 4 << 10

// The colours WriteText uses.
const (
	bold  = "\x1b[1m"
	dim   = "\x1b[2m"
	red   = "\x1b[31m"
	green = "\x1b[32m"
	cyan  = "\x1b[36m"
	reset = "\x1b[0m"
)

// textWriter prints a session, escaping every text from the session
// (termtext: control characters and bidi overrides made visible) and
// colouring only what it adds itself.
type textWriter struct {
	w   *bufio.Writer
	opt TextOptions
}

// put writes s; a bufio.Writer keeps its first error, which Flush
// returns.
func (t *textWriter) put(s string) { _, _ = t.w.WriteString(s) }

func (t *textWriter) paint(colour, s string) {
	if t.opt.Colour {
		t.put(colour + s + reset)
		return
	}
	t.put(s)
}

// text prints untrusted text, bounded and escaped, each line indented.
func (t *textWriter) text(indent, s, file string) {
	more := ""
	if t.opt.MaxText > 0 && len(s) > t.opt.MaxText {
		more = fmt.Sprintf("… %d more bytes", len(s)-t.opt.MaxText)
		if file != "" {
			more += " in " + termtext.Field(file)
		}
		s = strings.ToValidUTF8(s[:t.opt.MaxText], "")
	}
	for line := range strings.Lines(termtext.Text(s)) {
		t.put(indent + strings.TrimRight(line, "\n") + "\n")
	}
	if more != "" {
		t.put(indent)
		t.paint(dim, more)
		t.put("\n")
	}
}

func (t *textWriter) heading(s string) {
	t.paint(bold, s)
	t.put("\n")
}

// WriteText prints the session for a person on a terminal: the task, each
// turn's answer, tool calls and results, the trace events the transcript
// does not say (hooks, denials, retries), the end, the scores and the
// workspace diff.
func (s *Session) WriteText(w io.Writer, opt TextOptions) error {
	t := &textWriter{w: bufio.NewWriter(w), opt: opt}
	for _, p := range s.Problems {
		t.paint(red, "cannot read "+termtext.Field(p))
		t.put("\n")
	}
	t.heading("task")
	t.text("  ", s.Task, s.path(taskFile))
	if s.Transcript == nil {
		t.paint(dim, "no transcript kept (a run made before logs/transcript.jsonl); the trace's tool calls:\n")
		s.writeTraceCalls(t)
	} else {
		s.writeTurns(t)
	}
	s.writeEvents(t)
	s.writeEnd(t)
	s.writeScores(t)
	if s.Diff != "" {
		t.heading("workspace diff")
		t.text("  ", s.Diff, s.path(diffFile))
	}
	if len(s.Cut) > 0 {
		t.paint(dim, "read only in part (too large): "+termtext.Field(strings.Join(s.Cut, ", "))+"\n")
	}
	return t.w.Flush()
}

// path is a session file's path, for "the rest is in" notes.
func (s *Session) path(name string) string { return filepath.Join(s.Dir, filepath.FromSlash(name)) }

func (s *Session) writeTurns(t *textWriter) {
	tr, file := s.Transcript, s.path(FileName)
	for _, p := range tr.Problems {
		t.paint(red, "transcript: "+termtext.Field(p)+"\n")
	}
	for ai, a := range tr.Attempts {
		if len(tr.Attempts) > 1 {
			t.heading(fmt.Sprintf("attempt %d of %d", ai+1, len(tr.Attempts)))
			if ai > 0 {
				t.text("  ", a.Start.Task, file)
			}
		}
		for _, turn := range a.Turns {
			t.writeTurn(turn, file)
		}
	}
}

func (t *textWriter) writeTurn(turn Turn, file string) {
	ans := turn.Answer
	head := fmt.Sprintf("turn %d", ans.Turn)
	if ans.StopReason != "" {
		head += " · " + termtext.Field(ans.StopReason)
	}
	if ans.InputTokens != nil && ans.OutputTokens != nil {
		head += fmt.Sprintf(" · %d in / %d out", *ans.InputTokens, *ans.OutputTokens)
	}
	if ans.DurationMS > 0 {
		head += fmt.Sprintf(" · %d ms", ans.DurationMS)
	}
	t.heading(head)
	if ans.Error != "" {
		t.paint(red, "  error:\n")
		t.text("    ", ans.Error, file)
	}
	if turn.Text != "" {
		t.paint(cyan, "  assistant:\n")
		t.text("    ", turn.Text, file)
	}
	answered := map[string]bool{}
	for _, c := range turn.Calls {
		t.paint(cyan, "  → "+termtext.Field(c.Name)+"\n")
		t.text("    ", compactJSON(c.Input), file)
		for _, r := range turn.Results {
			if r.ToolCallID == c.ID && !answered[c.ID] {
				t.writeResult(r, file)
				answered[c.ID] = true
			}
		}
	}
	for _, r := range turn.Results { // results whose call the answer does not hold
		if !answered[r.ToolCallID] {
			t.writeResult(r, file)
		}
	}
}

func (t *textWriter) writeResult(r Entry, file string) {
	label := "  ← " + termtext.Field(r.Name)
	colour := green
	if r.IsError {
		colour = red
		label += " (error"
		if r.Code != "" {
			label += " " + termtext.Field(r.Code)
		}
		label += ")"
	}
	t.paint(colour, label+":\n")
	t.text("    ", r.Output, file)
}

// writeTraceCalls prints the trace's tool_call events, for a session with
// no transcript.
func (s *Session) writeTraceCalls(t *textWriter) {
	for _, e := range s.Trace {
		if e.Type == "tool_call" {
			t.text("  ", EventLine(e), s.path(traceFile))
		}
	}
}

func (s *Session) writeEvents(t *textWriter) {
	var shown bool
	for _, e := range s.Trace {
		if !e.Notable() {
			continue
		}
		if !shown {
			t.heading("events")
			shown = true
		}
		t.text("  ", EventLine(e), s.path(traceFile))
	}
}

func (s *Session) writeEnd(t *textWriter) {
	tr := s.Transcript
	switch {
	case tr != nil && tr.End != nil:
		t.heading("end: " + termtext.Field(tr.End.ExitStatus))
		t.text("  ", tr.End.Result, s.path(resultFile))
	case s.Result != "":
		t.heading("result")
		t.text("  ", s.Result, s.path(resultFile))
	default:
		t.paint(dim, "the session did not end (cancelled, timed out, or its loop failed)\n")
	}
}

func (s *Session) writeScores(t *textWriter) {
	if len(s.Scores) == 0 {
		return
	}
	t.heading("scores")
	for _, sc := range s.Scores {
		colour := green
		if sc.Result != "pass" {
			colour = red
		}
		t.put("  ")
		t.paint(colour, fmt.Sprintf("%-4s", termtext.Field(sc.Result)))
		t.put(" " + termtext.Field(sc.Scorer))
		if len(sc.Reason) <= 120 && !strings.Contains(sc.Reason, "\n") {
			t.put(": " + termtext.Field(sc.Reason) + "\n")
			continue
		}
		t.put("\n")
		t.text("       ", sc.Reason, s.path(evalFile))
	}
}

// EventLine is a trace event as one line: its type and turn, then its
// fields but the ones every line has.
func EventLine(e TraceEvent) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(e.Raw, &m) != nil {
		return e.Type
	}
	for _, k := range []string{"event_type", "session_id", "timestamp", "turn"} {
		delete(m, k)
	}
	rest, _ := json.Marshal(m)
	head := e.Type
	if e.Turn != nil {
		head += fmt.Sprintf(" (turn %d)", *e.Turn)
	}
	return head + " " + string(rest)
}

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
