package view

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/reports"
)

// caseKey names one epoch of a case (of a variant, "" in a run without).
type caseKey struct {
	id      string
	epoch   int32
	variant string
}

// attemptKey names one attempt of one epoch of a case.
type attemptKey struct {
	caseKey
	attempt int32
}

// run is one run folder read back: its result rows grouped by case (in
// the order the cases first appear), each epoch's last attempt, and the
// scores of each attempt.
type run struct {
	dir    string // absolute
	runID  string
	rows   []reports.ResultRow
	cases  []string             // case ids, each once
	byCase map[string][]int     // indexes into rows, by epoch then attempt
	final  map[caseKey]int      // the index of each epoch's last attempt
	scores map[attemptKey][]int // indexes into scores
	score  []reports.ScoreRow
}

// readRun reads the run folder path (what is the run's role, "run" or
// "baseline", for messages).
func readRun(path, what string) (*run, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, errcode.Wrap(errcode.IONotFound, err, "no %s at %s", what, path).
			WithHint("give a run folder: the --out of murmur-eval run")
	case err != nil:
		return nil, errcode.Wrap(errcode.IO, err, "read %s %s", what, path)
	case !fi.IsDir():
		return nil, errcode.New(errcode.Usage, "%s %s is not a run folder", what, path).
			WithHint("give the run's folder (the --out of murmur-eval run), not one of its files: the view reads its sessions/ too")
	}
	if _, err := os.Stat(filepath.Join(path, reports.ResultsFile)); err != nil {
		return nil, errcode.Wrap(errcode.IONotFound, err, "%s %s has no %s", what, path, reports.ResultsFile).
			WithHint("give a finished run's folder; a run killed before it wrote %s is finished with murmur-eval run --resume %s", reports.ResultsFile, path)
	}
	data, err := reports.ReadRun(path)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "read %s %s", what, path)
	}
	return index(abs, data), nil
}

// index groups a run's rows.
func index(dir string, data *reports.RunData) *run {
	r := &run{dir: dir, rows: data.Results, score: data.Scores,
		byCase: map[string][]int{}, final: map[caseKey]int{}, scores: map[attemptKey][]int{}}
	for i := range r.rows {
		row := &r.rows[i]
		if r.runID == "" {
			r.runID = row.RunID
		}
		if _, ok := r.byCase[row.CaseID]; !ok {
			r.cases = append(r.cases, row.CaseID)
		}
		r.byCase[row.CaseID] = append(r.byCase[row.CaseID], i)
		k := caseKey{row.CaseID, row.Epoch, reports.VariantName(row.Variant)}
		if j, ok := r.final[k]; !ok || r.rows[j].Attempt < row.Attempt {
			r.final[k] = i
		}
	}
	for _, idx := range r.byCase {
		slices.SortStableFunc(idx, func(a, b int) int {
			return cmp.Or(cmp.Compare(r.rows[a].Epoch, r.rows[b].Epoch), cmp.Compare(r.rows[a].Attempt, r.rows[b].Attempt))
		})
	}
	for i, s := range r.score {
		k := attemptKey{caseKey{s.CaseID, s.Epoch, reports.VariantName(s.Variant)}, max(1, s.Attempt)}
		r.scores[k] = append(r.scores[k], i)
	}
	return r
}

// finalRow is the last attempt of the case's epoch; nil when the run has
// none.
func (r *run) finalRow(k caseKey) *reports.ResultRow {
	if r == nil {
		return nil
	}
	i, ok := r.final[k]
	if !ok {
		return nil
	}
	return &r.rows[i]
}

// scoresOf are the scores of the row's attempt.
func (r *run) scoresOf(row *reports.ResultRow) []reports.ScoreRow {
	idx := r.scores[attemptKey{caseKey{row.CaseID, row.Epoch, reports.VariantName(row.Variant)}, max(1, row.Attempt)}]
	out := make([]reports.ScoreRow, len(idx))
	for i, j := range idx {
		out[i] = r.score[j]
	}
	return out
}

// sessionDir is the row's session folder, "" when it has none or its
// recorded path leaves the run folder.
func (r *run) sessionDir(row *reports.ResultRow) string {
	if row.SessionDir == "" || !filepath.IsLocal(row.SessionDir) {
		return ""
	}
	return filepath.Join(r.dir, row.SessionDir)
}

// isVerdict reports whether a status is a verdict (passed or failed).
func isVerdict(status string) bool {
	return status == reports.StatusPassed || status == reports.StatusFailed
}

// flipped reports whether the run's row and the baseline's have different
// verdicts; errors and timeouts are no verdicts and never flip.
func flipped(row, base *reports.ResultRow) bool {
	return row != nil && base != nil && isVerdict(row.Status) && isVerdict(base.Status) && row.Status != base.Status
}
