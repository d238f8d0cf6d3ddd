package main

import (
	"os"
	"path/filepath"
	"strconv"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/runfolder"
)

// journalOnlyRun reports whether path is a run folder whose run ended before it
// wrote its Parquet files (killed, or still running): it has run.json and
// no results.parquet.
func journalOnlyRun(path string) bool {
	if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
		return false
	}
	if _, err := os.Stat(filepath.Join(path, journal.RunFile)); err != nil {
		return false
	}
	_, err := os.Stat(filepath.Join(path, reports.ResultsFile))
	return os.IsNotExist(err)
}

// readKilled summarises a killed run from its journal: the cases that
// finished before it was killed, how many it planned (when its dataset is
// there unchanged; 0 otherwise) and the command line that finishes it
// (none from a murmur-eval that did not record it). A torn last line or a
// line that cannot be read is left out, as --resume leaves it out. A run
// still going (its folder's lock is held) is summarised alike, as running
// (reports.StoppedRunning), with no command.
func readKilled(dir string) (reports.Digest, []string, error) {
	run, err := journal.ReadRun(dir)
	if err != nil {
		return reports.Digest{}, nil, err
	}
	stopped := reports.StoppedKilled
	if lock, err := journal.Share(dir); errcode.Is(err, errcode.RunFolderLocked) {
		stopped, run.Resume = reports.StoppedRunning, nil
	} else if err == nil {
		defer lock.Unlock()
	}
	contents, err := journal.Read(filepath.Join(dir, runfolder.JournalFile), journal.CheckRecord)
	if err != nil {
		return reports.Digest{}, nil, err
	}
	records, _, err := journal.Records(contents.Entries)
	if err != nil {
		return reports.Digest{}, nil, err
	}
	s := &reports.Summary{}
	epochs, _ := strconv.Atoi(run.Inputs["epochs"])
	s.SetEpochs(max(1, epochs))
	for _, r := range records {
		f := r.Final()
		s.AddCase(f.Result, f.Scores)
	}
	d := s.Digest(0)
	d.RunID, d.Version = run.RunID, run.Version
	d.Complete, d.Stopped, d.Planned = false, stopped, planned(run)
	d.Ran = d.Cases - d.Statuses[reports.StatusCancelled]
	d.Gates = []reports.GateResult{}
	return d, run.Resume, nil
}

// planned is the number of (case, epoch) pairs a run planned, read from
// its dataset again; 0 when the dataset is gone or changed.
func planned(run journal.Run) int {
	in := run.Inputs
	if d, err := journal.FileDigest(in["dataset"]); err != nil || d != run.Config["dataset"] {
		return 0
	}
	ds, err := datasets.Load(in["dataset"])
	if err != nil {
		return 0
	}
	defer ds.Close()
	shard, _ := datasets.ParseShard(run.Config[runfolder.ShardPart])
	epochs, _ := strconv.Atoi(in["epochs"])
	limit, _ := strconv.Atoi(in["limit"])
	return datasets.Selection{Filter: in["filter"], Limit: limit, Shard: shard}.Apply(ds).Len() * max(1, epochs)
}
