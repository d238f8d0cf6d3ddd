// Package runfolder is a run's folder: creating it or reopening it for
// --resume under its lock, the configuration fingerprint in its run.json
// (and the digest of the files a dataset names), its journal opened with
// the lines checked against the run, the (case, epoch) pairs the run has
// left to do, and the links that find a session folder by its case
// (CasesDir).
package runfolder

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/journal"
)

// Folder is the folder a run writes into: a new one, or the folder of the
// run --resume finishes.
type Folder struct {
	RunID string
	Prev  *journal.Run // the resumed run's run.json; nil for a new run
	// lock is the folder's exclusive lock, held for the run's life: a
	// second run or --resume on the folder is refused while it is held.
	lock *journal.Lock
}

// Create creates the new run folder dir for the run runID (refusing one
// with content: CreateDir) and takes its lock (journal.Acquire); the
// caller releases it with Unlock when the run ends (the kernel does if
// the process dies).
func Create(dir, runID string) (*Folder, error) {
	if err := CreateDir(dir); err != nil {
		return nil, err
	}
	lock, err := journal.Acquire(dir)
	if err != nil {
		return nil, err
	}
	return &Folder{RunID: runID, lock: lock}, nil
}

// Resume opens the folder of the run to resume, takes its lock, and
// removes what its interrupted writers left: temporary files.
func Resume(dir string) (*Folder, error) {
	prev, err := journal.ReadRun(dir)
	if err != nil {
		return nil, err
	}
	// Locked before anything is removed or read further: the temporary
	// files of a run still writing are not leftovers.
	lock, err := journal.Acquire(dir)
	if err != nil {
		return nil, err
	}
	RemoveTemps(dir)
	return &Folder{RunID: prev.RunID, Prev: &prev, lock: lock}, nil
}

// Unlock releases the folder's lock.
func (f *Folder) Unlock() { _ = f.lock.Unlock() }

// CreateDir creates a run folder (with its sessions folder), refusing one
// that has content so a run never mixes its files with another's.
func CreateDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err == nil && len(entries) > 0 {
		return errcode.New(errcode.Usage, "--out %s already exists and is not empty", dir).
			WithHint("choose a new --out folder, or remove the old run")
	}
	if err := os.MkdirAll(filepath.Join(dir, "sessions"), 0o755); err != nil {
		return errcode.Wrap(errcode.IO, err, "create --out %s", dir)
	}
	return nil
}

// Clear empties a run folder in which nothing ran, so the same --out can
// be used again.
func Clear(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		_ = os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// RemoveTemps removes the temporary files (".<name>.tmp-*") a killed run
// left in its folder.
func RemoveTemps(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, ".") && strings.Contains(n, ".tmp-") {
			_ = os.Remove(filepath.Join(dir, n))
		}
	}
}

// PruneUnjournaled removes the session folders of cases that never reached
// the journal (running when the run was killed): they are run again. The
// case links to removed folders go too (CasesDir).
func PruneUnjournaled(outDir string, records []journal.Record) {
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
	pruneLinks(outDir)
}
