package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Transcript is a transcript read back: its attempts in order, each with
// its turns, and how the session ended.
type Transcript struct {
	Attempts []Attempt
	// End is the session's end entry; nil when the session did not end
	// (it was cancelled, or its loop failed).
	End *Entry
	// Problems are the lines that were not entries, one message each
	// ("line 3: ..."), at most maxProblems of them: the file is the
	// tools' to write, so what it holds is shown, not trusted.
	Problems []string
}

// Attempt is one conversation: the start entry and the turns after it.
type Attempt struct {
	Start Entry
	Turns []Turn
}

// Turn is one model answer and the tool results sent back for it.
type Turn struct {
	Answer  Entry
	Calls   []Call // the answer's tool_call blocks
	Text    string // the answer's text blocks, joined by blank lines
	Results []Entry
}

// Call is one tool_call block of an answer.
type Call struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// maxProblems bounds the problems kept for one file.
const maxProblems = 20

// Read parses a transcript file. It never fails: lines that are not
// entries are skipped and named in Problems; entries out of order (a turn
// before any start, a tool result before any turn) get an attempt or turn
// made for them, so nothing recorded is lost from view.
func Read(data []byte) *Transcript {
	t := &Transcript{}
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			t.problem("line %d: not a transcript entry: %v", n, err)
			continue
		}
		if err := t.add(e); err != nil {
			t.problem("line %d: %v", n, err)
		}
	}
	return t
}

func (t *Transcript) problem(format string, args ...any) {
	if len(t.Problems) < maxProblems {
		t.Problems = append(t.Problems, fmt.Sprintf(format, args...))
	}
}

// add files one entry under its attempt and turn.
func (t *Transcript) add(e Entry) error {
	switch e.Kind {
	case KindStart:
		t.Attempts = append(t.Attempts, Attempt{Start: e})
	case KindTurn:
		a := t.current()
		calls, text := decodeContent(e.Content)
		a.Turns = append(a.Turns, Turn{Answer: e, Calls: calls, Text: text})
	case KindToolResult:
		a := t.current()
		if len(a.Turns) == 0 {
			a.Turns = append(a.Turns, Turn{Answer: Entry{Kind: KindTurn, Turn: e.Turn}})
		}
		last := &a.Turns[len(a.Turns)-1]
		last.Results = append(last.Results, e)
	case KindEnd:
		end := e
		t.End = &end
	default:
		return fmt.Errorf("unknown kind %q", e.Kind)
	}
	return nil
}

// current is the last attempt, made when there is none.
func (t *Transcript) current() *Attempt {
	if len(t.Attempts) == 0 {
		t.Attempts = append(t.Attempts, Attempt{Start: Entry{Kind: KindStart}})
	}
	return &t.Attempts[len(t.Attempts)-1]
}

// block is the part of a content block the transcript reads.
type block struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// decodeContent returns an answer's tool calls and its text. Content that
// is not an array of blocks gives neither (the raw content is still shown).
func decodeContent(content json.RawMessage) ([]Call, string) {
	var blocks []block
	if len(content) == 0 || json.Unmarshal(content, &blocks) != nil {
		return nil, ""
	}
	var calls []Call
	var texts []string
	for _, b := range blocks {
		switch b.Type {
		case "tool_call":
			calls = append(calls, Call{ID: b.ID, Name: b.Name, Input: b.Input})
		case "text":
			texts = append(texts, b.Text)
		}
	}
	return calls, strings.Join(texts, "\n\n")
}

// Turns counts the turns over all attempts.
func (t *Transcript) Turns() int {
	n := 0
	for _, a := range t.Attempts {
		n += len(a.Turns)
	}
	return n
}
