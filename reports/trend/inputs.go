package trend

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/runfolder"
)

// inputPart is one fingerprint part of run.json (runfolder.Parts) that
// says what a run ran, and its name in a sentence.
type inputPart struct{ key, name string }

// datasetParts and capsuleParts are the parts compared between runs: a
// change of selection, epochs, flags or recordings changes how a run ran,
// not what it measured, and the case grid shows which cases ran.
var (
	datasetParts = []inputPart{ //nolint:gochecknoglobals // read-only tables
		{"dataset", "the dataset file's lines"},
		{runfolder.InputsPart, "the task files or workspaces its lines name"},
	}
	capsuleParts = []inputPart{ //nolint:gochecknoglobals // read-only tables
		{"manifest", "murmur.yaml"},
		{"lock", "murmur.lock"},
		{"artifacts", "the artifacts in its stores"},
	}
)

// InputChange is a run whose dataset or capsule differs from the run
// before it: what a reader must know before comparing their pass rates.
type InputChange struct {
	Run, Prev *Run
	Dataset   []string // what of the dataset differs; empty when nothing
	Capsule   []string // what of the capsule differs
}

// Text says it in a sentence: "run #3 (...) is of another dataset than
// run #2 (...): the dataset file's lines changed; the change between them
// is not the model's alone".
func (c InputChange) Text() string {
	var what, detail []string
	if len(c.Dataset) > 0 {
		what = append(what, "dataset")
		detail = append(detail, c.Dataset...)
	}
	if len(c.Capsule) > 0 {
		what = append(what, "capsule")
		detail = append(detail, c.Capsule...)
	}
	return fmt.Sprintf("run %s is of another %s than run %s: %s changed; the change between them is not the model's alone",
		runName(c.Run), strings.Join(what, " and "), runName(c.Prev), strings.Join(detail, ", "))
}

// inputChanges compares each run's inputs with the previous run's, in
// start order. A part either run.json lacks (a run folder copied without
// it, a run of an older murmur-eval) is not compared: nothing is said of
// what cannot be known.
func inputChanges(runs []*Run) []InputChange {
	var out []InputChange
	for i := 1; i < len(runs); i++ {
		prev, cur := runs[i-1], runs[i]
		c := InputChange{Run: cur, Prev: prev,
			Dataset: changedParts(prev.config, cur.config, datasetParts),
			Capsule: changedParts(prev.config, cur.config, capsuleParts)}
		pn, cn := capsuleLabel(prev), capsuleLabel(cur)
		if pn != "" && cn != "" && pn != cn {
			c.Capsule = append([]string{fmt.Sprintf("its name and version (%s, then %s)", pn, cn)}, c.Capsule...)
		}
		if len(c.Dataset)+len(c.Capsule) > 0 {
			out = append(out, c)
		}
	}
	return out
}

func changedParts(prev, cur map[string]string, parts []inputPart) []string {
	var out []string
	for _, p := range parts {
		// A lock absent from one run is not a change: a run without
		// murmur.lock writes the one its staging pinned, as mur eval run
		// does (runfolder.CheckResume adopts it likewise).
		a, b := prev[p.key], cur[p.key]
		if a != "" && b != "" && a != journal.Absent && b != journal.Absent && a != b {
			out = append(out, p.name)
		}
	}
	return out
}

func capsuleLabel(r *Run) string {
	return strings.TrimSpace(r.Digest.Capsule.Name + " " + r.Digest.Capsule.Version)
}

// recordedConfig reads the fingerprint parts of the run's run.json, nil
// when it has none that can be read.
func recordedConfig(path string) map[string]string {
	dir := path
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		dir = filepath.Dir(path)
	}
	run, err := journal.ReadRun(dir)
	if err != nil {
		return nil
	}
	return run.Config
}
