package runfolder

import (
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/journal"
)

// Journal is a run's journal opened for appending, with what it held.
type Journal struct {
	*journal.Writer
	Records []journal.Record     // the latest record of every (case, epoch)
	Done    map[journal.Key]bool // the (case, epoch) pairs of Records
	Bad     []journal.BadLine    // lines skipped (journal.Contents.Bad)
}

// RunInfo is what a new run's run.json records beside its fingerprint.
type RunInfo struct {
	// Inputs are the selection's inputs as merge reads them again: the
	// dataset's absolute path, epochs, filter and limit.
	Inputs  map[string]string
	Version string // murmur-eval's version
	// Resume is the command line that finishes the run (journal.Run).
	Resume []string
}

// OpenJournal checks a resumed run's configuration parts, or records a
// new run's (with info) in run.json, then opens the journal in outDir
// (repairing a torn last line) and returns the records of the cases it
// holds. Lines that cannot be read back, and lines that bounds refuse (a
// case, epoch, attempt or session this run does not have), are skipped
// and listed in Bad; the run's cases among them run again. A resumed run's
// session folders that never reached the journal are removed.
func (f *Folder) OpenJournal(outDir, capsuleDir string, parts map[string]string, info RunInfo, bounds journal.Bounds) (Journal, error) {
	if f.Prev != nil {
		run, err := CheckResume(outDir, *f.Prev, parts, filepath.Join(capsuleDir, capsule.LockFile))
		if err != nil {
			return Journal{}, err
		}
		if run.ConfigSHA256 != f.Prev.ConfigSHA256 { // the lock the run wrote, adopted
			if err := journal.WriteRun(outDir, run); err != nil {
				return Journal{}, err
			}
		}
	} else {
		run := journal.Run{RunID: f.RunID, ConfigSHA256: journal.Fingerprint(parts), Config: parts, Inputs: info.Inputs, Version: info.Version, Resume: info.Resume}
		if err := journal.WriteRun(outDir, run); err != nil {
			return Journal{}, err
		}
	}
	jw, contents, err := journal.Open(filepath.Join(outDir, JournalFile), journal.InRun(bounds))
	if err != nil {
		return Journal{}, err
	}
	records, done, err := journal.Records(contents.Entries)
	if err != nil {
		_ = jw.Close()
		return Journal{}, err
	}
	if f.Prev != nil {
		PruneUnjournaled(outDir, records)
	}
	return Journal{Writer: jw, Records: records, Done: done, Bad: contents.Bad}, nil
}
