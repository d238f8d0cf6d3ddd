package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/pricing"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/runfolder"
	"github.com/murmur-nexus/murmur-eval/scoring"
	"github.com/murmur-nexus/murmur-eval/transcript"
)

// scoreStage is the error_stage of a case score could not score again:
// scoring is the Report stage's work in a run.
const scoreStage = "report"

// rescorer scores a run's cases again from their session folders. Its
// cases may be scored concurrently: the plan, its judge and the check box
// are safe for concurrent use, and each case writes only its own copy.
type rescorer struct {
	plan     *scoring.Plan
	expected map[string]json.RawMessage // by case id: the dataset now
	runDir   string                     // the run re-scored, absolute
	outDir   string                     // the new run folder, absolute
	checks   *checkBox                  // runs expected.check commands
	judged   judgeObserver              // hears the judge's divergences and retries
	prices   *pricing.Table             // prices the judge's tokens; nil: no judge cost
}

// all scores every record again (rescorer.one), workers at a time (a
// judge's requests are what takes time), and counts what came of them,
// in the records' order.
func (r rescorer) all(ctx context.Context, records []journal.Record, workers int) ([]journal.Record, scoreTally) {
	out := make([]journal.Record, len(records))
	tallies := make([]scoreTally, len(records))
	var g errgroup.Group
	g.SetLimit(max(1, workers))
	for i, rec := range records {
		g.Go(func() error {
			out[i] = r.one(ctx, rec, &tallies[i])
			return nil
		})
	}
	_ = g.Wait()
	var t scoreTally
	for _, ti := range tallies {
		t.add(ti)
	}
	return out, t
}

// one is a record with its last attempt scored again: a passed or failed
// case from its kept session folder; a case in error, timeout or
// cancelled as it was. A case that cannot be scored from its folder is an
// error with no scores (notRescored), never a guessed verdict. The
// earlier attempts are copied.
func (r rescorer) one(ctx context.Context, rec journal.Record, t *scoreTally) journal.Record {
	rec.Attempts = slices.Clone(rec.Attempts)
	for i := range rec.Attempts {
		// merge.ReadShard made session_dir absolute; an attempt that had
		// none now names the run folder itself.
		if filepath.FromSlash(rec.Attempts[i].Result.SessionDir) == r.runDir {
			rec.Attempts[i].Result.SessionDir = ""
		}
	}
	a := &rec.Attempts[len(rec.Attempts)-1]
	res := a.Result
	if res.Status != reports.StatusPassed && res.Status != reports.StatusFailed {
		t.carried++
		return rec
	}
	label := fmt.Sprintf("case %q epoch %d", res.CaseID, res.Epoch)
	dir, ok := runfolder.SessionFolder(r.runDir, res.CaseID, reports.VariantName(res.Variant), int(res.Epoch), int(res.Attempt), res.SessionID)
	if !ok {
		t.notKept = append(t.notKept, label)
		r.notRescored(a, errcode.New(errcode.NotRescored, "not re-scored: its session folder was not kept"))
		return rec
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	a.Result.SessionDir = filepath.ToSlash(dir)
	raw, inDataset := r.expected[res.CaseID]
	if !inDataset {
		t.notInDataset = append(t.notInDataset, label)
	}
	var checks scoring.CheckRunner
	var err error
	if r.writesSession(raw) {
		// A check or a judge writes its log into the session folder: it
		// runs in a copy, in the new run folder, which the row and the
		// case's link then name.
		if dir, checks, err = r.sessionCopy(res.SessionID, dir); err == nil {
			a.Result.SessionDir = filepath.ToSlash(dir)
			t.copied++
		}
	}
	var in scoring.Input
	if err == nil {
		in, err = sessionInput(dir, res, raw, a.Events)
		in.Checks, in.Observer = checks, r.judged
	}
	if err == nil {
		var scores []scoring.Score
		if scores, err = r.plan.Score(ctx, in); err == nil {
			t.rescored++
			setScores(a, scores, in.Trace.TaskExitStatus, r.prices)
			if a.Result.Status != res.Status {
				t.changed = append(t.changed, fmt.Sprintf("%s: %s -> %s", label, res.Status, a.Result.Status))
			}
			return rec
		}
	}
	t.errored = append(t.errored, fmt.Sprintf("%s: %s", label, errcode.Format(err)))
	r.notRescored(a, err)
	return rec
}

// writesSession reports whether scoring the case writes into its session
// folder: its expected runs a check (logs/check.log), or a judge scores
// it (logs/judge.jsonl).
func (r rescorer) writesSession(expected json.RawMessage) bool {
	e, _, _ := r.plan.Expected(expected)
	if e != nil && e.Check != nil {
		return true
	}
	return r.plan.Judge != nil && (r.plan.NeedsJudge() || (e != nil && e.Rubric != nil))
}

// sessionCopy copies the case's session folder dir into the new run
// folder's sessions/<session id>, for its check and judge to write in, and
// returns the copy and the check runner.
func (r rescorer) sessionCopy(sessionID, dir string) (string, scoring.CheckRunner, error) {
	if err := journal.CheckSessionID(sessionID); err != nil {
		return "", nil, errcode.New(errcode.NotRescored, "not re-scored: session id %q: %v", sessionID, err)
	}
	dst := filepath.Join(r.outDir, runfolder.SessionsDir, sessionID)
	bytes, entries, err := copySession(dir, dst)
	if err != nil {
		return "", nil, err
	}
	return dst, r.checks.caseRunner(bytes, entries), nil
}

// sessionInput is what the scorers read of a case: its trace summarised,
// out/result.txt, the task, the conversation and the workspace diff a
// judge reads. The trace is the run's own copy of it, the attempt's events
// rows (journaled from the trace writer), not the session's trace.jsonl,
// which the case's tools could have replaced while they ran; the session
// folder is read through transcript.Load (sessionfs: beneath it, regular
// files only, bounded), and a file refused, or cut at its bound, refuses
// the case's scoring.
func sessionInput(dir string, res reports.ResultRow, expected json.RawMessage, events []reports.EventRow) (scoring.Input, error) {
	s, err := transcript.Load(dir, transcript.DefaultLimits())
	if err != nil {
		return scoring.Input{}, err
	}
	if len(s.Problems) > 0 {
		return scoring.Input{}, errcode.New(errcode.SessionFile, "%s: %s", dir, strings.Join(s.Problems, "; "))
	}
	for _, name := range []string{"trace.jsonl", "out/result.txt"} {
		if slices.Contains(s.Cut, name) && (name != "trace.jsonl" || len(events) == 0) {
			return scoring.Input{}, errcode.New(errcode.NotRescored, "not re-scored: %s of %s is past its read limit", name, dir)
		}
	}
	tr, err := scoring.SummarizeTrace(traceLines(events, s.Trace))
	if err != nil {
		return scoring.Input{}, errcode.Wrap(errcode.NotRescored, err, "not re-scored: %s", dir)
	}
	if !tr.Ended {
		return scoring.Input{}, errcode.New(errcode.NotRescored, "not re-scored: %s has no session_end in trace.jsonl", dir)
	}
	return scoring.Input{CaseID: res.CaseID, Variant: reports.VariantName(res.Variant), SessionID: res.SessionID, SessionDir: dir, Trace: tr, ResultText: s.Result,
		Expected: expected, Task: s.Task, Transcript: s.Transcript, Diff: s.Diff}, nil
}

// traceLines are the case's trace lines: its events rows' JSON in
// sequence order, or, for a row journaled without events, the session's
// trace.jsonl.
func traceLines(events []reports.EventRow, file []transcript.TraceEvent) [][]byte {
	if len(events) == 0 {
		lines := make([][]byte, len(file))
		for i, e := range file {
			lines[i] = e.Raw
		}
		return lines
	}
	sorted := slices.Clone(events)
	slices.SortStableFunc(sorted, func(a, b reports.EventRow) int { return int(a.Seq) - int(b.Seq) })
	lines := make([][]byte, len(sorted))
	for i, e := range sorted {
		lines[i] = []byte(e.EventJSON)
	}
	return lines
}

// setScores gives the attempt its new scores and the verdict they make:
// passed when every scorer passed (Report's rule), with murmur's view of
// it again; prices prices the judge's tokens (nil: no judge cost).
func setScores(a *journal.Attempt, scores []scoring.Score, taskExit string, prices *pricing.Table) {
	r := &a.Result
	c := &pipeline.Case{RunID: r.RunID, ID: r.CaseID, Epoch: int(r.Epoch), SessionID: r.SessionID, Attempt: int(r.Attempt), Variant: reports.VariantName(r.Variant)}
	a.Scores = reports.ScoresFromCase(reports.CaseRun{Case: c, Scores: scores, Prices: prices})
	r.Status = reports.StatusPassed
	if slices.ContainsFunc(scores, func(s scoring.Score) bool { return !s.Pass }) {
		r.Status = reports.StatusFailed
	}
	r.ErrorCode, r.ErrorStage, r.ErrorMessage = nil, nil, nil
	setMurmurColumns(r, taskExit, scores)
}

// notRescored makes the attempt an error with err's code, and no scores:
// only passed and failed cases have scores anywhere.
func (r rescorer) notRescored(a *journal.Attempt, err error) {
	res := &a.Result
	code, stage := errcode.Code(err), scoreStage
	if code == "" {
		code = errcode.Internal
	}
	msg := fmt.Sprintf("%v (it was %s)", err, res.Status)
	res.Status = reports.StatusError
	res.ErrorCode, res.ErrorStage, res.ErrorMessage = &code, &stage, &msg
	a.Scores = nil
	setMurmurColumns(res, "", nil)
}

// setMurmurColumns sets murmur_overall and murmur_difference for the row's
// status and scores, as the run does.
func setMurmurColumns(r *reports.ResultRow, taskExit string, scores []scoring.Score) {
	o := scoring.MurmurOutcome{Scored: r.Status == reports.StatusPassed || r.Status == reports.StatusFailed, Passed: r.Status == reports.StatusPassed,
		TaskExit: taskExit, Scores: scores}
	if r.ErrorCode != nil {
		o.ErrorCode = *r.ErrorCode
	}
	if r.ExitStatus != nil {
		o.ExitStatus = *r.ExitStatus
	}
	v := scoring.CompareWithMurmur(o)
	r.MurmurOverall, r.MurmurDifference = nil, nil
	if v.Overall != "" {
		r.MurmurOverall = &v.Overall
	}
	if v.Difference != "" {
		r.MurmurDifference = &v.Difference
	}
}
