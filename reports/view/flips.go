package view

import (
	"fmt"
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/transcript"
)

// flipView is a case epoch whose verdict changed against the baseline:
// both transcripts aligned turn by turn, the first divergent turn marked.
type flipView struct {
	Epoch     int32
	Epochs    bool // the run has more than one epoch of the case
	From, To  string
	Line      string
	RunID     string
	BaseRunID string
	Rows      []flipRow
	BaseRaw   []linkView
}

// flipRow is one turn of both sides, by its index over all attempts.
type flipRow struct {
	Divergent   bool
	Left, Right *turnView
}

// flip compares the epoch's last attempt (row, whose session is sess) with
// the baseline's (base).
func flip(row *reports.ResultRow, sess *transcript.Session, runID string, baseRun *run, base *reports.ResultRow, l linker, b *budget) flipView {
	fv := flipView{Epoch: row.Epoch, From: clean(base.Status), To: clean(row.Status), RunID: clean(runID), BaseRunID: clean(baseRun.runID)}
	var baseSess *transcript.Session
	if dir := baseRun.sessionDir(base); dir != "" {
		if baseSess, _ = transcript.Load(dir, transcript.DefaultLimits()); baseSess != nil {
			fv.BaseRaw = rawLinks(baseSess, l)
		}
	}
	switch {
	case sess == nil || sess.Transcript == nil:
		fv.Line = "The turns cannot be aligned: this run's session kept no transcript (a run made before murmur-eval kept one); compare the trace files."
		return fv
	case baseSess == nil || baseSess.Transcript == nil:
		fv.Line = "The turns cannot be aligned: the baseline's session kept no transcript (a run made before murmur-eval kept one); compare the trace files."
		return fv
	}
	d := transcript.Diverge(sess.Transcript, baseSess.Transcript)
	left := flat(fromTranscript(sess.Transcript, b, l.href(filepath.Join(sess.Dir, transcript.FileName)), fmt.Sprintf("flip-e%d-run", row.Epoch)))
	right := flat(fromTranscript(baseSess.Transcript, b, l.href(filepath.Join(baseSess.Dir, transcript.FileName)), fmt.Sprintf("flip-e%d-base", row.Epoch)))
	for i := range max(len(left), len(right)) {
		fr := flipRow{Divergent: d.Found && i == d.Index}
		if i < len(left) {
			fr.Left = &left[i]
			fr.Left.Divergent = fr.Divergent
		}
		if i < len(right) {
			fr.Right = &right[i]
			fr.Right.Divergent = fr.Divergent
		}
		fv.Rows = append(fv.Rows, fr)
	}
	fv.Line = divergenceLine(d, len(left))
	return fv
}

// divergenceLine says where and how the two transcripts part.
func divergenceLine(d transcript.Divergence, turns int) string {
	switch {
	case !d.Found:
		return "The two transcripts do not differ, turn by turn, nor in how they ended: the verdict changed with the scoring, not the conversation."
	case d.Index >= turns && d.Turn == 0 && d.Attempt == 0:
		return clean(fmt.Sprintf("Every turn is the same; after the last: %s.", d.What))
	}
	return clean(fmt.Sprintf("First divergent turn: turn %d of attempt %d (turn %d of the conversation, counted from 1): %s.", d.Turn, d.Attempt, d.Index+1, d.What))
}

// flat is the turns of all attempts in order.
func flat(attempts []attemptView) []turnView {
	var out []turnView
	for _, a := range attempts {
		out = append(out, a.Turns...)
	}
	return out
}
