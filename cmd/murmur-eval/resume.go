package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/pipeline"
)

// runFolder is the folder a run writes into: a new one, or the folder of
// the run --resume finishes.
type runFolder struct {
	runID string
	prev  *journal.Run // the resumed run's run.json; nil for a new run
}

// openRunFolder creates a new run folder, or opens the one to resume and
// removes what its interrupted writers left: temporary files.
func openRunFolder(o *options) (runFolder, error) {
	if o.batch.resume == "" {
		id := newID("run_")
		if o.out == "" {
			o.out = filepath.Join("runs", id)
		}
		return runFolder{runID: id}, createRunDir(o.out)
	}
	prev, err := journal.ReadRun(o.out)
	if err != nil {
		return runFolder{}, err
	}
	removeTemps(o.out)
	return runFolder{runID: prev.RunID, prev: &prev}, nil
}

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

// planJobs lists the (case, epoch) pairs to run, epoch by epoch so a run cut
// short has whole epochs first, leaving out those already done.
func planJobs(cases []datasets.Case, epochs int, done map[journal.Key]bool) []pipeline.Job {
	var jobs []pipeline.Job
	for e := 1; e <= epochs; e++ {
		for _, c := range cases {
			if !done[journal.Key{CaseID: c.ID, Epoch: e}] {
				jobs = append(jobs, pipeline.Job{Input: c, Epoch: e})
			}
		}
	}
	return jobs
}

// openJournal checks a resumed run's configuration, or records a new
// run's, then opens the journal (repairing a torn last line) and returns
// the records of the cases it holds, and which (case, epoch) pairs are done.
func openJournal(o options, env map[string]string, folder runFolder, outDir string) (*journal.Writer, []caseRecord, map[journal.Key]bool, error) {
	parts, err := configParts(o, env)
	if err != nil {
		return nil, nil, nil, err
	}
	if folder.prev != nil {
		if err := checkResume(o.out, *folder.prev, parts); err != nil {
			return nil, nil, nil, err
		}
	} else {
		inputs := map[string]string{"dataset": absPath(o.dataset), "epochs": strconv.Itoa(o.batch.epochs),
			"filter": o.batch.filter, "limit": strconv.Itoa(o.batch.limit)}
		run := journal.Run{RunID: folder.runID, ConfigSHA256: journal.Fingerprint(parts), Config: parts, Inputs: inputs}
		if err := journal.WriteRun(outDir, run); err != nil {
			return nil, nil, nil, err
		}
	}
	jw, entries, err := journal.Open(filepath.Join(outDir, journalFile))
	if err != nil {
		return nil, nil, nil, err
	}
	records, done, err := journaled(entries)
	if err != nil {
		jw.Close()
		return nil, nil, nil, err
	}
	if folder.prev != nil {
		pruneUnjournaled(outDir, records)
	}
	return jw, records, done, nil
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
