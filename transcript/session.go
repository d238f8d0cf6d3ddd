package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
)

// Session is what a case's session folder says, read back for a person:
// the task, the conversation, murmur's trace events, the scores and the
// files the case left. Every text in it comes from the model, the tools or
// the dataset: a reader escapes it for wherever it shows it.
type Session struct {
	Dir        string
	Task       string
	Transcript *Transcript // nil when the session kept none (an older run)
	Trace      []TraceEvent
	Scores     []Score
	Result     string // out/result.txt
	Diff       string // out/workspace.diff, "" when absent
	// Cut names the files read only up to the limit, Problems the files
	// that could not be read and why.
	Cut      []string
	Problems []string
}

// TraceEvent is one trace.jsonl line: its type and turn, and the line.
type TraceEvent struct {
	Type string          `json:"event_type"`
	Turn *int            `json:"turn"`
	Raw  json.RawMessage `json:"-"`
}

// Score is one event_score record of eval.jsonl.
type Score struct {
	Scorer string   `json:"scorer"`
	Result string   `json:"result"`
	Score  *float64 `json:"score"`
	Reason string   `json:"reason"`
}

// Limits bound what Load reads of each file; a longer file is read up to
// the limit (its last partial line dropped) and named in Session.Cut.
type Limits struct {
	Transcript, Trace, Small int64
}

// DefaultLimits reads a transcript and a trace up to 256 MiB each, and
// task, result, scores and diff up to 16 MiB each.
func DefaultLimits() Limits { return Limits{Transcript: 256 << 20, Trace: 256 << 20, Small: 16 << 20} }

// The files Load reads.
const (
	taskFile   = "task.md"
	traceFile  = "trace.jsonl"
	evalFile   = "eval.jsonl"
	resultFile = "out/result.txt"
	diffFile   = "out/workspace.diff"
)

// Load reads the session folder dir through sessionfs (beneath the folder,
// regular files only): a file a tool replaced with a link out, a FIFO or a
// device is a problem named in the Session, never followed. Only a folder
// that cannot be opened is an error.
func Load(dir string, lim Limits) (*Session, error) {
	root, err := sessionfs.Open(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	s := &Session{Dir: dir}
	s.Task = string(s.read(root, taskFile, lim.Small))
	s.Result = string(s.read(root, resultFile, lim.Small))
	s.Diff = string(s.read(root, diffFile, lim.Small))
	if b := s.read(root, FileName, lim.Transcript); b != nil {
		s.Transcript = Read(b)
	}
	s.Trace = readTrace(s.read(root, traceFile, lim.Trace))
	s.Scores = readScores(s.read(root, evalFile, lim.Small))
	return s, nil
}

// read reads up to limit bytes of name; nil when it is absent or refused.
func (s *Session) read(root *sessionfs.Root, name string, limit int64) []byte {
	f, err := root.OpenRead(name)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.Problems = append(s.Problems, fmt.Sprintf("%s: %v", name, err))
		}
		return nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(bufio.NewReader(f), limit+1))
	if err != nil {
		s.Problems = append(s.Problems, fmt.Sprintf("%s: %v", name, err))
		return nil
	}
	if int64(len(b)) > limit {
		s.Cut = append(s.Cut, name)
		b = b[:limit]
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 && (name == FileName || name == traceFile || name == evalFile) {
			b = b[:i+1]
		}
	}
	return b
}

// readTrace splits trace lines, keeping those with an event type.
func readTrace(data []byte) []TraceEvent {
	var out []TraceEvent
	for line := range bytes.Lines(data) {
		line = bytes.TrimSpace(line)
		var e TraceEvent
		if len(line) == 0 || json.Unmarshal(line, &e) != nil || e.Type == "" {
			continue
		}
		e.Raw = json.RawMessage(line)
		out = append(out, e)
	}
	return out
}

// readScores keeps eval.jsonl's event_score records.
func readScores(data []byte) []Score {
	var out []Score
	for line := range bytes.Lines(data) {
		var r struct {
			RecordType string `json:"record_type"`
			Score
		}
		if json.Unmarshal(bytes.TrimSpace(line), &r) != nil || r.RecordType != "event_score" {
			continue
		}
		out = append(out, r.Score)
	}
	return out
}

// Notable reports whether a trace event says something the conversation
// does not: not an ordinary turn or tool call, nor a session's or task's
// start or end, but a hook's own model call (an inference event with an
// origin), a tool call that did not succeed, a denial, a retry, a
// divergence, a reopened task. `show --case` and `view` list these.
func (e TraceEvent) Notable() bool {
	switch e.Type {
	case "session_start", "session_end", "task_start", "task_end":
		return false
	case "inference", "tool_call":
		var c struct {
			Status string `json:"status"`
			Origin string `json:"origin"`
		}
		_ = json.Unmarshal(e.Raw, &c)
		return c.Origin != "" || c.Status != "" && c.Status != "ok"
	}
	return true
}
