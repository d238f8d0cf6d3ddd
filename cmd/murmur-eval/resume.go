package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/runfolder"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// openRunFolder creates a new run folder (under runs/ with the run's id
// when --out is not given), or opens the one --resume names.
func openRunFolder(o *options) (*runfolder.Folder, error) {
	if o.batch.resume != "" {
		return runfolder.Resume(o.out)
	}
	id := trace.NewID("run_")
	if o.out == "" {
		o.out = filepath.Join("runs", id)
	}
	return runfolder.Create(o.out, id)
}

// fingerprintConfig is what of the run's flags goes into its fingerprint
// (runfolder.Parts); inputs is the digest of the files the dataset's
// lines name.
func fingerprintConfig(o options, env map[string]string, inputs string) runfolder.Config {
	c := runfolder.Config{CapsuleDir: o.capsuleDir, Dataset: o.dataset, Replay: o.replay, Home: env["HOME"],
		Filter: o.batch.filter, Limit: o.batch.limit, Shard: o.batch.shard, Epochs: o.batch.epochs, Retries: o.batch.retries,
		Timeout: o.timeout, CheckTimeout: o.checkTimeout, Record: o.record != "", Inputs: inputs, Optional: map[string]string{}}
	if o.driver == driverBuiltin {
		// Only when set, so runs journaled before --driver existed still resume.
		c.Optional["driver"] = driverBuiltin
	}
	if o.workdirMaxFiles != defaultWorkdirMaxFiles {
		// Likewise only when not the default (--workdir-max-files is newer).
		c.Optional["workdir-max-files"] = strconv.Itoa(o.workdirMaxFiles)
	}
	if b := o.budget.fingerprint(); b != "" {
		// The case limits decide cases' verdicts (over_budget); --max-cost
		// only how many run, so it is left out.
		c.Optional["case-budget"] = b
	}
	if v := o.variants.fingerprint(); v != "" {
		// Which variants run, and what each changes, decide the rows.
		c.Optional["variants"] = v
	}
	if j := o.judge.fingerprint(); j != "" {
		// A judge's verdicts are the run's: a resume under another judge
		// would mix them.
		c.Optional["judge"] = j
	}
	return c
}

// openJournal checks a resumed run's configuration, or records a new
// run's, then opens the journal (runfolder.Folder.OpenJournal); the lines
// it skipped are warned of once.
func openJournal(o options, env map[string]string, inputs string, folder *runfolder.Folder, outDir string, bounds journal.Bounds, warn io.Writer) (runfolder.Journal, error) {
	parts, err := runfolder.Parts(fingerprintConfig(o, env, inputs))
	if err != nil {
		return runfolder.Journal{}, err
	}
	info := runfolder.RunInfo{Version: buildVersion(), Inputs: map[string]string{"dataset": absPath(o.dataset),
		"epochs": strconv.Itoa(o.batch.epochs), "filter": o.batch.filter, "limit": strconv.Itoa(o.batch.limit)},
		Resume: resumeArgs(o, absPath)}
	j, err := folder.OpenJournal(outDir, o.capsuleDir, parts, info, bounds)
	if err != nil {
		return j, err
	}
	warnBadLines(warn, filepath.Join(o.out, runfolder.JournalFile), j.Bad)
	return j, nil
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
