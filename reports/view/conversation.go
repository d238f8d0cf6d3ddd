package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/murmur-nexus/murmur-eval/transcript"
)

// attemptView is one conversation of a session: how it started and its
// turns.
type attemptView struct {
	Attempt int
	Model   string
	Tools   string
	System  textView
	Task    textView
	Turns   []turnView
}

// turnView is one model answer with its tool calls and their results.
type turnView struct {
	Index         int // over all the session's attempts, from 0
	Attempt, Turn int
	Anchor        string
	StopReason    string
	Error         string
	Digest        string
	Tokens        string
	DurationMS    int64
	Text          textView
	Calls         []callView
	Divergent     bool
}

// callView is one tool call and what it returned.
type callView struct {
	Name, ID  string
	Input     textView
	Output    textView
	HasOutput bool
	IsError   bool
	Status    string // from the trace: ok, error, ...
	Code      string
}

// fromTranscript is the conversation a transcript keeps.
func fromTranscript(t *transcript.Transcript, b *budget, raw, anchor string) []attemptView {
	var out []attemptView
	index := 0
	for i, a := range t.Attempts {
		av := attemptView{Attempt: i + 1, Model: clean(a.Start.Model), Tools: clean(strings.Join(a.Start.Tools, ", ")),
			System: b.text(a.Start.System, raw), Task: b.text(a.Start.Task, raw)}
		for _, turn := range a.Turns {
			av.Turns = append(av.Turns, turnOf(turn, b, raw, anchor, index, i+1))
			index++
		}
		out = append(out, av)
	}
	return out
}

func turnOf(turn transcript.Turn, b *budget, raw, anchor string, index, attempt int) turnView {
	ans := turn.Answer
	tv := turnView{Index: index, Attempt: attempt, Turn: ans.Turn, Anchor: fmt.Sprintf("%s-t%d", anchor, index),
		StopReason: clean(ans.StopReason), Error: clean(ans.Error), Digest: clean(short(ans.RequestSHA256)),
		DurationMS: ans.DurationMS, Tokens: tokens(ans.InputTokens, ans.OutputTokens)}
	text := turn.Text
	if text == "" && len(turn.Calls) == 0 && len(ans.Content) > 0 {
		text = string(ans.Content) // not blocks: show it as it came
	}
	tv.Text = b.text(text, raw)
	used := make([]bool, len(turn.Results))
	for _, c := range turn.Calls {
		cv := callView{Name: clean(c.Name), ID: clean(c.ID), Input: b.text(jsonText(c.Input), raw)}
		for k, r := range turn.Results {
			if !used[k] && r.ToolCallID == c.ID {
				used[k] = true
				cv.HasOutput, cv.Output, cv.IsError, cv.Code = true, b.text(r.Output, raw), r.IsError, clean(r.Code)
				break
			}
		}
		tv.Calls = append(tv.Calls, cv)
	}
	for k, r := range turn.Results { // results no call of the answer asked for
		if !used[k] {
			tv.Calls = append(tv.Calls, callView{Name: clean(r.Name), ID: clean(r.ToolCallID), HasOutput: true,
				Output: b.text(r.Output, raw), IsError: r.IsError, Code: clean(r.Code)})
		}
	}
	return tv
}

// traceCall is the part of a trace.jsonl tool_call event the page shows.
type traceCall struct {
	Turn      int             `json:"turn"`
	ToolName  string          `json:"tool_name"`
	Input     json.RawMessage `json:"input"`
	Output    *string         `json:"output"`
	Status    string          `json:"status"`
	ErrorCode string          `json:"error_code"`
	Decision  string          `json:"decision"`
}

// fromTrace is what the trace says of a conversation whose transcript was
// not kept: a turn per inference event, with the tool calls of its turn
// (their outputs only when the trace kept them).
func fromTrace(events []transcript.TraceEvent, b *budget, raw, anchor string) []attemptView {
	var out []attemptView
	cur := func() *attemptView {
		if len(out) == 0 {
			out = append(out, attemptView{Attempt: 1})
		}
		return &out[len(out)-1]
	}
	index := 0
	for _, e := range events {
		var c traceCall
		switch e.Type {
		case "task_start":
			if len(out) > 0 {
				out = append(out, attemptView{Attempt: len(out) + 1})
			}
		case "inference":
			_ = json.Unmarshal(e.Raw, &c)
			a := cur()
			a.Turns = append(a.Turns, turnView{Index: index, Attempt: a.Attempt, Turn: c.Turn,
				Anchor: fmt.Sprintf("%s-t%d", anchor, index), StopReason: clean(c.Decision)})
			index++
		case "tool_call":
			_ = json.Unmarshal(e.Raw, &c)
			a := cur()
			if len(a.Turns) == 0 {
				a.Turns = append(a.Turns, turnView{Index: index, Attempt: a.Attempt, Turn: c.Turn, Anchor: fmt.Sprintf("%s-t%d", anchor, index)})
				index++
			}
			cv := callView{Name: clean(c.ToolName), Input: b.text(jsonText(c.Input), raw), Status: clean(c.Status), Code: clean(c.ErrorCode)}
			if c.Output != nil {
				cv.HasOutput, cv.Output = true, b.text(*c.Output, raw)
			}
			last := &a.Turns[len(a.Turns)-1]
			last.Calls = append(last.Calls, cv)
		}
	}
	return out
}

// jsonText is a tool call's input as a person reads it: indented when it
// is small JSON, as it came otherwise.
func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 || len(raw) > maxShown {
		return string(raw)
	}
	var buf bytes.Buffer
	if json.Indent(&buf, raw, "", "  ") != nil {
		return string(raw)
	}
	return buf.String()
}

func tokens(in, out *int64) string {
	switch {
	case in != nil && out != nil:
		return fmt.Sprintf("%d in, %d out", *in, *out)
	case in != nil:
		return fmt.Sprintf("%d in", *in)
	case out != nil:
		return fmt.Sprintf("%d out", *out)
	}
	return ""
}

func short(digest string) string {
	if len(digest) > 12 {
		return digest[:12]
	}
	return digest
}
