package main

import (
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// runFolder is the folder a run writes into: a new one, or the folder of
// the run --resume finishes.
type runFolder struct {
	runID string
	prev  *journal.Run // the resumed run's run.json; nil for a new run
	// lock is the folder's exclusive lock, held for the run's life: a
	// second run or --resume on the folder is refused while it is held.
	lock *journal.Lock
}

// openRunFolder creates a new run folder, or opens the one to resume and
// removes what its interrupted writers left: temporary files. Either way
// it takes the folder's lock first (journal.Acquire); the caller releases
// it with unlock when the run ends (the kernel does if the process dies).
func openRunFolder(o *options) (runFolder, error) {
	if o.batch.resume == "" {
		id := trace.NewID("run_")
		if o.out == "" {
			o.out = filepath.Join("runs", id)
		}
		if err := createRunDir(o.out); err != nil {
			return runFolder{}, err
		}
		lock, err := journal.Acquire(o.out)
		if err != nil {
			return runFolder{}, err
		}
		return runFolder{runID: id, lock: lock}, nil
	}
	prev, err := journal.ReadRun(o.out)
	if err != nil {
		return runFolder{}, err
	}
	// Locked before anything is removed or read further: the temporary
	// files of a run still writing are not leftovers.
	lock, err := journal.Acquire(o.out)
	if err != nil {
		return runFolder{}, err
	}
	removeTemps(o.out)
	return runFolder{runID: prev.RunID, prev: &prev, lock: lock}, nil
}

// unlock releases the folder's lock.
func (f runFolder) unlock() { _ = f.lock.Unlock() }

// removeTemps removes the temporary files (".<name>.tmp-*") a killed run
// left in its folder.
func removeTemps(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, ".") && strings.Contains(n, ".tmp-") {
			_ = os.Remove(filepath.Join(dir, n))
		}
	}
}

// pruneUnjournaled removes the session folders of cases that never reached
// the journal (running when the run was killed): they are run again.
func pruneUnjournaled(outDir string, records []caseRecord) {
	keep := map[string]bool{}
	for _, r := range records {
		for _, a := range r.Attempts {
			keep[filepath.Base(filepath.FromSlash(a.Result.SessionDir))] = true
		}
	}
	entries, _ := os.ReadDir(filepath.Join(outDir, "sessions"))
	for _, e := range entries {
		if !keep[e.Name()] {
			_ = os.RemoveAll(filepath.Join(outDir, "sessions", e.Name()))
		}
	}
}

// journaled decodes the latest entry of every (case, epoch) in the journal.
func journaled(entries []journal.Entry) ([]caseRecord, map[journal.Key]bool, error) {
	latest := journal.Latest(entries)
	records := make([]caseRecord, 0, len(latest))
	done := make(map[journal.Key]bool, len(latest))
	for _, e := range latest {
		r, err := decodeRecord(e)
		if err != nil {
			return nil, nil, err
		}
		records = append(records, r)
		done[e.Key()] = true
	}
	return records, done, nil
}

// planJobs yields the (case, epoch) pairs to run, epoch by epoch so a run
// cut short has whole epochs first, leaving out those already done, and
// says how many it will yield. A job is made when the runner asks for it
// (no list of them held all run); its Input is the case's index in ds,
// which the runner's NewCase reads (caseInput).
func planJobs(ds *datasets.Dataset, selected datasets.Picked, epochs int, done map[journal.Key]bool) (int, iter.Seq[pipeline.Job]) {
	isDone := func(i, e int) bool {
		return len(done) > 0 && done[journal.Key{CaseID: ds.ID(i), Epoch: e}]
	}
	n := selected.Len() * epochs
	if len(done) > 0 {
		for e := 1; e <= epochs; e++ {
			for i := range selected.All() {
				if isDone(i, e) {
					n--
				}
			}
		}
	}
	return n, func(yield func(pipeline.Job) bool) {
		for e := 1; e <= epochs; e++ {
			for i := range selected.All() {
				if !isDone(i, e) && !yield(pipeline.Job{ID: ds.ID(i), Input: int32(i), Epoch: e}) {
					return
				}
			}
		}
	}
}

// caseInput is a job's input for its stages: its dataset line read again
// and parsed, or why it could not be (pipeline.InputOf hands that error to
// the first stage that reads the line, and the case's row records it).
func caseInput(ds *datasets.Dataset, j pipeline.Job) any {
	i, ok := j.Input.(int32)
	if !ok {
		return j.Input
	}
	c, err := ds.Case(int(i))
	if err != nil {
		return err
	}
	return c
}

// openJournal checks a resumed run's configuration, or records a new
// run's, then opens the journal (repairing a torn last line) and returns
// the records of the cases it holds, and which (case, epoch) pairs are done.
// Lines that cannot be read back, and lines that bounds refuse (a case,
// epoch, attempt or session this run does not have), are skipped, the
// run's cases among them run again, and a warning with their count and
// reasons goes to warn once.
func openJournal(o options, env map[string]string, inputs string, folder runFolder, outDir string, bounds journal.Bounds, warn io.Writer) (*journal.Writer, []caseRecord, map[journal.Key]bool, error) {
	parts, err := configParts(o, env, inputs)
	if err != nil {
		return nil, nil, nil, err
	}
	if folder.prev != nil {
		run, err := checkResume(o.out, *folder.prev, parts, filepath.Join(o.capsuleDir, capsule.LockFile))
		if err != nil {
			return nil, nil, nil, err
		}
		if run.ConfigSHA256 != folder.prev.ConfigSHA256 { // the lock the run wrote, adopted
			if err := journal.WriteRun(outDir, run); err != nil {
				return nil, nil, nil, err
			}
		}
	} else {
		inputs := map[string]string{"dataset": absPath(o.dataset), "epochs": strconv.Itoa(o.batch.epochs),
			"filter": o.batch.filter, "limit": strconv.Itoa(o.batch.limit)}
		run := journal.Run{RunID: folder.runID, ConfigSHA256: journal.Fingerprint(parts), Config: parts, Inputs: inputs, Version: buildVersion()}
		if err := journal.WriteRun(outDir, run); err != nil {
			return nil, nil, nil, err
		}
	}
	jw, contents, err := journal.Open(filepath.Join(outDir, journalFile), checkInRun(bounds))
	if err != nil {
		return nil, nil, nil, err
	}
	warnBadLines(warn, filepath.Join(o.out, journalFile), contents.Bad)
	records, done, err := journaled(contents.Entries)
	if err != nil {
		_ = jw.Close()
		return nil, nil, nil, err
	}
	if folder.prev != nil {
		pruneUnjournaled(outDir, records)
	}
	return jw, records, done, nil
}

// checkRecord is the journal's test of a line's record: one that does not
// decode is a bad line, skipped, and its case runs again.
func checkRecord(e journal.Entry) error {
	_, err := decodeRecord(e)
	return err
}

// runBounds is what the run's journal may name (journal.Bounds): the
// selected cases, epochs 1..--epochs, attempts 1..--retries+1. All three
// are in the run's fingerprint, so a resume has the run's own. The set of
// the selection's ids is built on the first question: a new run's journal
// is empty and asks none.
func runBounds(ds *datasets.Dataset, selected datasets.Picked, o options) journal.Bounds {
	var ids map[string]struct{}
	return journal.Bounds{
		HasCase: func(id string) bool {
			if ids == nil {
				ids = make(map[string]struct{}, selected.Len())
				for i := range selected.All() {
					ids[ds.ID(i)] = struct{}{}
				}
			}
			_, ok := ids[id]
			return ok
		},
		Epochs:   o.batch.epochs,
		Attempts: o.batch.retries + 1,
	}
}

// checkInRun is the journal's test of a line on --resume: its record
// decodes (checkRecord) and it belongs to the run (bounds.Check). A line
// either refuses is a bad line: reported, not counted, dropped from the
// journal.
func checkInRun(bounds journal.Bounds) journal.Check {
	return func(e journal.Entry) error {
		r, err := decodeRecord(e)
		if err != nil {
			return err
		}
		return bounds.Check(e, r.rowIDs())
	}
}

// rowIDs is the identity of every row of the record, attempt by attempt,
// for journal.Bounds.Check.
func (r caseRecord) rowIDs() []journal.AttemptRows {
	out := make([]journal.AttemptRows, len(r.Attempts))
	for i, a := range r.Attempts {
		res := a.Result
		out[i].Result = journal.Row{CaseID: res.CaseID, Epoch: int(res.Epoch), Attempt: int(res.Attempt), SessionID: res.SessionID, SessionDir: res.SessionDir}
		others := make([]journal.Row, 0, len(a.Scores)+len(a.Events))
		for _, s := range a.Scores {
			others = append(others, journal.Row{CaseID: s.CaseID, Epoch: int(s.Epoch), Attempt: int(s.Attempt), SessionID: s.SessionID})
		}
		for _, e := range a.Events {
			others = append(others, journal.Row{CaseID: e.CaseID, Epoch: int(e.Epoch), Attempt: int(e.Attempt), SessionID: e.SessionID})
		}
		out[i].Others = others
	}
	return out
}

// warnBadLines prints, once, how many journal lines were skipped and the
// first few of them with their reasons.
func warnBadLines(w io.Writer, path string, bad []journal.BadLine) {
	if len(bad) == 0 {
		return
	}
	fmt.Fprintf(w, "murmur-eval: warning: %s: %d lines could not be read or are not of this run and were skipped; those of the run's cases run again (the journal is rewritten without them)\n", path, len(bad))
	for _, b := range bad[:min(len(bad), 5)] {
		fmt.Fprintf(w, "  %s:%d: %s\n", path, b.Line, trimReason(b.Reason))
	}
	if len(bad) > 5 {
		fmt.Fprintf(w, "  ... and %d more\n", len(bad)-5)
	}
}

// trimReason keeps a skipped line's reason to one short line.
func trimReason(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
