package view

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/transcript"
)

// casePage is what a case page's template sees.
type casePage struct {
	CSP      string
	CaseID   string
	RunID    string
	Flips    []flipView
	Sections []sectionView
}

// sectionView is one attempt of one epoch of the case.
type sectionView struct {
	Anchor         string
	Epoch, Attempt int32
	Variant        string // the row's variant, "" in a run without
	Final          bool
	Status, Error  string
	Facts, Stages  []fact
	Raw            []linkView
	Problems       []string
	NoSession      bool
	Task           textView
	Transcript     bool
	Conversation   []attemptView
	Events         []eventView
	EventsLeft     int
	HasAnswer      bool
	Answer         textView
	Scores         []scoreView
	JudgeCost      bool // some score has a judge: the table has a cost column
	HasDiff        bool
	Diff           textView
	HasTrace       bool
	TraceSummary   string
	Trace          textView
}

type fact struct{ Label, Value string }

type linkView struct{ Name, Href string }

type eventView struct {
	Type, Turn string
	Text       textView
}

type scoreView struct {
	Scorer, Result, Score string
	Cost                  string // the judge's cost, "" for a score without a judge
	Reason                textView
}

// The raw files a page links, in the order it lists them.
var rawFiles = [...]string{"task.md", transcript.FileName, "trace.jsonl", "eval.jsonl", "out/result.txt", "out/workspace.diff"} //nolint:gochecknoglobals // a constant list

// maxEvents bounds the hook and denial events a section lists.
const maxEvents = 200

// attemptAnchor is the id of an attempt's section.
func attemptAnchor(row *reports.ResultRow) string {
	a := fmt.Sprintf("e%d-a%d", row.Epoch, max(1, row.Attempt))
	if row.Variant != nil { // a name may hold anything: a digest keeps the anchor plain
		sum := sha256.Sum256([]byte(*row.Variant))
		a += "-v" + hex.EncodeToString(sum[:6])
	}
	return a
}

// section is the row's attempt as its page shows it, and its session
// (nil when it has none, or it could not be read).
func section(r *run, row *reports.ResultRow, final bool, l linker, b *budget) (sectionView, *transcript.Session) {
	sv := sectionView{Anchor: attemptAnchor(row), Epoch: row.Epoch, Attempt: max(1, row.Attempt), Final: final, Variant: clean(reports.VariantName(row.Variant)),
		Status: clean(row.Status), Facts: facts(row), Stages: stages(row)}
	if row.ErrorCode != nil || row.ErrorMessage != nil {
		sv.Error = clean(strings.TrimSpace(deref(row.ErrorCode) + " " + deref(row.ErrorStage) + ": " + deref(row.ErrorMessage)))
	}
	for _, s := range r.scoresOf(row) {
		sv.Scores = append(sv.Scores, scoreView{Scorer: clean(s.Scorer), Result: clean(s.Result),
			Score: strconv.FormatFloat(s.Score, 'g', 4, 64), Cost: judgeCost(&s), Reason: b.text(s.Reason, "")})
		sv.JudgeCost = sv.JudgeCost || s.JudgeModel != nil
	}
	dir := r.sessionDir(row)
	if dir == "" {
		sv.NoSession = true
		return sv, nil
	}
	sess, err := transcript.Load(dir, transcript.DefaultLimits())
	if err != nil {
		sv.NoSession = true
		sv.Problems = append(sv.Problems, clean(fmt.Sprintf("the session folder %s cannot be read: %v", row.SessionDir, err)))
		return sv, nil
	}
	sv.Raw = rawLinks(sess, l)
	fill(&sv, sess, l, b)
	return sv, sess
}

// fill adds what the session folder holds.
func fill(sv *sectionView, s *transcript.Session, l linker, b *budget) {
	raw := func(name string) string { return l.href(filepath.Join(s.Dir, filepath.FromSlash(name))) }
	sv.Task = b.text(s.Task, raw("task.md"))
	anchor := sv.Anchor
	if s.Transcript != nil {
		sv.Transcript = true
		sv.Conversation = fromTranscript(s.Transcript, b, raw(transcript.FileName), anchor)
		for _, p := range s.Transcript.Problems {
			sv.Problems = append(sv.Problems, clean(transcript.FileName+": "+p))
		}
	} else {
		sv.Conversation = fromTrace(s.Trace, b, raw("trace.jsonl"), anchor)
	}
	for _, name := range s.Cut {
		sv.Problems = append(sv.Problems, clean(name+" is larger than murmur-eval reads: only its beginning is shown"))
	}
	for _, p := range s.Problems {
		sv.Problems = append(sv.Problems, clean(p))
	}
	answer := s.Result
	if answer == "" && s.Transcript != nil && s.Transcript.End != nil {
		answer = s.Transcript.End.Result
	}
	sv.HasAnswer, sv.Answer = answer != "", b.text(answer, raw("out/result.txt"))
	sv.HasDiff, sv.Diff = s.Diff != "", b.text(s.Diff, raw("out/workspace.diff"))
	if len(sv.Scores) == 0 { // scores.parquet had none: eval.jsonl may
		for _, sc := range s.Scores {
			v := ""
			if sc.Score != nil {
				v = strconv.FormatFloat(*sc.Score, 'g', 4, 64)
			}
			sv.Scores = append(sv.Scores, scoreView{Scorer: clean(sc.Scorer), Result: clean(sc.Result), Score: v, Reason: b.text(sc.Reason, raw("eval.jsonl"))})
		}
	}
	events(sv, s.Trace, b, raw("trace.jsonl"))
}

// events lists the notable trace events, and the trace's first lines.
func events(sv *sectionView, trace []transcript.TraceEvent, b *budget, raw string) {
	counts := map[string]int{}
	var order []string
	var head strings.Builder
	left := int64(0)
	for _, e := range trace {
		if counts[e.Type] == 0 {
			order = append(order, e.Type)
		}
		counts[e.Type]++
		if head.Len()+len(e.Raw) < maxShown {
			head.Write(e.Raw)
			head.WriteByte('\n')
		} else {
			left += int64(len(e.Raw) + 1)
		}
		if !e.Notable() {
			continue
		}
		if len(sv.Events) >= maxEvents {
			sv.EventsLeft++
			continue
		}
		ev := eventView{Type: clean(e.Type), Text: b.text(string(e.Raw), raw)}
		if e.Turn != nil {
			ev.Turn = strconv.Itoa(*e.Turn)
		}
		sv.Events = append(sv.Events, ev)
	}
	if len(trace) == 0 {
		return
	}
	parts := make([]string, len(order))
	for i, t := range order {
		parts[i] = fmt.Sprintf("%d %s", counts[t], clean(t))
	}
	sv.HasTrace = true
	sv.TraceSummary = fmt.Sprintf("%d events in trace.jsonl: %s", len(trace), strings.Join(parts, ", "))
	sv.Trace = b.text(head.String(), raw)
	sv.Trace.Left += left
	if !sv.Trace.Fold {
		sv.Trace.Fold, sv.Trace.Summary = true, fmt.Sprintf("the trace's lines (%s)", size(int64(head.Len())+left))
	}
}

// rawLinks links the session folder and the raw files Load found in it
// (transcript.Load reads regular files beneath the folder only, so a link
// a tool left in place of a file is not linked either).
func rawLinks(s *transcript.Session, l linker) []linkView {
	var out []linkView
	if h := l.href(s.Dir); h != "" {
		out = append(out, linkView{Name: "session folder", Href: h})
	}
	has := map[string]bool{
		"task.md": s.Task != "", transcript.FileName: s.Transcript != nil, "trace.jsonl": len(s.Trace) > 0,
		"eval.jsonl": len(s.Scores) > 0, "out/result.txt": s.Result != "", "out/workspace.diff": s.Diff != "",
	}
	for _, name := range rawFiles {
		if has[name] {
			out = append(out, linkView{Name: name, Href: l.href(filepath.Join(s.Dir, filepath.FromSlash(name)))})
		}
	}
	return out
}

// facts are the row's numbers a section lists.
func facts(row *reports.ResultRow) []fact {
	f := []fact{
		{"session", clean(row.SessionID)},
		{"exit status", clean(deref(row.ExitStatus))},
		{"duration", msText(row.DurationMS)},
		{"turns", strconv.Itoa(int(row.Turns))},
		{"tool calls", strconv.Itoa(int(row.ToolCalls))},
		{"tokens (cl100k_base)", fmt.Sprintf("%d in, %d out", row.InputTokens, row.OutputTokens)},
	}
	if t := tokens(row.ProviderInputTokens, row.ProviderOutputTokens); t != "" {
		f = append(f, fact{"tokens (provider)", t})
	}
	f = append(f, fact{"cost (USD)", caseCost(row)})
	if row.Model != nil {
		f = append(f, fact{"model", clean(*row.Model)})
	}
	if row.InferenceRetries > 0 {
		f = append(f, fact{"inference retries", strconv.Itoa(int(row.InferenceRetries))})
	}
	if row.ReplayDivergences > 0 {
		f = append(f, fact{"replay divergences", strconv.Itoa(int(row.ReplayDivergences))})
	}
	if row.Reopens > 0 {
		f = append(f, fact{"reopened", strconv.Itoa(int(row.Reopens))})
	}
	return f
}

// stages are the row's milliseconds per stage, for the stages that ran.
func stages(row *reports.ResultRow) []fact {
	var out []fact
	for _, c := range reports.StageColumns() {
		if ms := c.Of(row); ms != nil {
			out = append(out, fact{c.Stage, msText(*ms)})
		}
	}
	return out
}

func msText(ms float64) string {
	if ms >= 10000 {
		return strconv.FormatFloat(ms/1000, 'f', 1, 64) + " s"
	}
	return strconv.FormatFloat(ms, 'f', 0, 64) + " ms"
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
