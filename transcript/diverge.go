package transcript

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Divergence is where two transcripts of one case part: the first turn,
// counted over all attempts from 0 (Index), whose request, answer or tool
// results differ, and what differed, in a line. Found is false when
// nothing did.
type Divergence struct {
	Found bool
	Index int
	// Attempt and Turn name the turn in the first transcript (or the
	// second's, when the first has no such turn).
	Attempt, Turn int
	What          string
}

// Diverge compares a (the run) with b (its baseline) turn by turn.
func Diverge(a, b *Transcript) Divergence {
	ta, tb := flatten(a), flatten(b)
	for i := 0; i < max(len(ta), len(tb)); i++ {
		var what string
		switch {
		case i >= len(ta):
			what = fmt.Sprintf("the run ended after %d turns, the baseline went on", len(ta))
		case i >= len(tb):
			what = fmt.Sprintf("the baseline ended after %d turns, the run went on", len(tb))
		default:
			what = turnDiff(ta[i], tb[i])
		}
		if what == "" {
			continue
		}
		at := ta
		if i >= len(ta) {
			at = tb
		}
		return Divergence{Found: true, Index: i, Attempt: at[i].attempt, Turn: at[i].turn.Answer.Turn, What: what}
	}
	if d := endDiff(a.End, b.End); d != "" {
		return Divergence{Found: true, Index: len(ta), What: d}
	}
	return Divergence{}
}

// placed is a turn with its attempt's number and start entry.
type placed struct {
	attempt int
	start   *Entry
	first   bool // the attempt's first turn
	turn    *Turn
}

func flatten(t *Transcript) []placed {
	var out []placed
	for i := range t.Attempts {
		a := &t.Attempts[i]
		for j := range a.Turns {
			out = append(out, placed{attempt: i + 1, start: &a.Start, first: j == 0, turn: &a.Turns[j]})
		}
	}
	return out
}

// turnDiff says what differs between two turns, "" when nothing does.
func turnDiff(a, b placed) string {
	if a.first || b.first {
		if d := startDiff(a.start, b.start); d != "" {
			return d
		}
	}
	x, y := a.turn.Answer, b.turn.Answer
	if x.RequestSHA256 != "" && y.RequestSHA256 != "" && x.RequestSHA256 != y.RequestSHA256 {
		return fmt.Sprintf("the request differs (digest %s vs %s)", short(x.RequestSHA256), short(y.RequestSHA256))
	}
	if x.Error != y.Error {
		return "the model call's error differs"
	}
	if x.StopReason != y.StopReason {
		return fmt.Sprintf("the answer differs (stop reason %s vs %s)", x.StopReason, y.StopReason)
	}
	if !bytes.Equal(bytes.TrimSpace(x.Content), bytes.TrimSpace(y.Content)) {
		if callNames(a.turn) != callNames(b.turn) {
			return fmt.Sprintf("the answer differs (tool calls %s vs %s)", callNames(a.turn), callNames(b.turn))
		}
		return "the answer differs"
	}
	ra, rb := a.turn.Results, b.turn.Results
	for k := 0; k < min(len(ra), len(rb)); k++ {
		if ra[k].Output != rb[k].Output || ra[k].IsError != rb[k].IsError || ra[k].Code != rb[k].Code {
			return fmt.Sprintf("the tool output of %s differs", ra[k].Name)
		}
	}
	if len(ra) != len(rb) {
		return fmt.Sprintf("the number of tool results differs (%d vs %d)", len(ra), len(rb))
	}
	return ""
}

// startDiff compares two attempts' start entries.
func startDiff(a, b *Entry) string {
	switch {
	case a.Model != b.Model:
		return fmt.Sprintf("the model differs (%s vs %s)", a.Model, b.Model)
	case withoutWorkdir(a.System) != withoutWorkdir(b.System):
		return "the system prompt differs"
	case !slices.Equal(a.Tools, b.Tools):
		return "the tools offered differ"
	case a.Task != b.Task:
		return "the task differs"
	}
	return ""
}

// withoutWorkdir is a system prompt with its "Workdir:" line (murmur's
// [Capsule] block names the session folder) made the same in every run:
// the folder differs between any two runs, and would make every pair of
// transcripts part at "the system prompt differs", as request digests
// replace it with a placeholder for the same reason.
func withoutWorkdir(system string) string {
	if !strings.Contains(system, "Workdir: ") {
		return system
	}
	lines := strings.Split(system, "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, "Workdir: ") {
			lines[i] = "Workdir: (the session folder)"
		}
	}
	return strings.Join(lines, "\n")
}

func endDiff(a, b *Entry) string {
	switch {
	case a == nil && b == nil:
		return ""
	case a == nil || b == nil:
		return "one session ended and the other did not"
	case a.ExitStatus != b.ExitStatus:
		return fmt.Sprintf("the session's end differs (%s vs %s)", a.ExitStatus, b.ExitStatus)
	case a.Result != b.Result:
		return "the final answer differs"
	}
	return ""
}

func callNames(t *Turn) string {
	names := make([]string, len(t.Calls))
	for i, c := range t.Calls {
		names[i] = c.Name
	}
	return fmt.Sprintf("%q", names)
}

func short(digest string) string {
	if len(digest) > 12 {
		return digest[:12]
	}
	return digest
}
