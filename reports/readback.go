package reports

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// The file names of a run folder.
const (
	ResultsFile = "results.parquet"
	EventsFile  = "events.parquet"
	ScoresFile  = "scores.parquet"
)

// RunData is a finished run read back from its Parquet files.
type RunData struct {
	Path    string      // what was read: a run folder or a Parquet file
	Results []ResultRow // nil when only a scores file was given
	Scores  []ScoreRow  // nil for a run written before scoring existed
}

// ReadRun reads a run back with DefaultReadLimits (ReadRunLimited).
func ReadRun(path string) (*RunData, error) { return ReadRunLimited(path, DefaultReadLimits()) }

// ReadRunLimited reads a run back: a run folder (results.parquet and, when
// present, scores.parquet), or one of its Parquet files. A results.parquet
// or scores.parquet given by path brings its sibling of the other kind when
// that exists; a Parquet file of another name is taken alone, its kind told
// by its columns. A missing or unreadable run is E-IO-001 or E-IO-003; a
// file past lim (a decompression bomb, or a run larger than lim allows) is
// E-EVL-052, refused before it is decoded (readparquet.go).
func ReadRunLimited(path string, lim ReadLimits) (*RunData, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, openErr(path, err)
	}
	r := &RunData{Path: path}
	var resultsPath, scoresPath string
	switch {
	case fi.IsDir():
		resultsPath = filepath.Join(path, ResultsFile)
		if _, err := os.Stat(resultsPath); err != nil {
			return nil, errcode.New(errcode.IONotFound, "%s has no %s", path, ResultsFile).
				WithHint("give a run folder written by murmur-eval, or the path of its %s", ScoresFile)
		}
		scoresPath = sibling(path, ScoresFile)
	default:
		kind, err := parquetKind(path, lim)
		if err != nil {
			return nil, err
		}
		if kind == ResultsFile {
			resultsPath = path
			if filepath.Base(path) == ResultsFile {
				scoresPath = sibling(filepath.Dir(path), ScoresFile)
			}
		} else {
			scoresPath = path
			if filepath.Base(path) == ScoresFile {
				resultsPath = sibling(filepath.Dir(path), ResultsFile)
			}
		}
	}
	if resultsPath != "" {
		if r.Results, err = readRows[ResultRow](resultsPath, lim); err != nil {
			return nil, err
		}
	}
	if scoresPath != "" {
		if r.Scores, err = readRows[ScoreRow](scoresPath, lim); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// sibling returns dir/name when it exists, "" otherwise.
func sibling(dir, name string) string {
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// parquetKind tells a results file from a scores file by its columns,
// read from its checked footer.
func parquetKind(path string, lim ReadLimits) (kind string, err error) {
	defer func() {
		if p := recover(); p != nil { // a footer parquet-go's decoder chokes on
			kind, err = "", malformed(path, "footer: %v", p)
		}
	}()
	c, err := openChecked(path, lim, false)
	if err != nil {
		return "", err
	}
	defer c.Close()
	cols := map[string]bool{}
	for _, s := range c.meta.Schema {
		cols[s.Name] = true
	}
	switch {
	case cols["scorer"] && cols["result"]:
		return ScoresFile, nil
	case cols["status"] && cols["case_id"]:
		return ResultsFile, nil
	}
	return "", errcode.New(errcode.IO, "%s is neither a results.parquet nor a scores.parquet", path)
}

func openErr(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return errcode.Wrap(errcode.IONotFound, err, "no run at %s", path).
			WithHint("give a run folder (the --out of a run) or one of its Parquet files")
	}
	return errcode.Wrap(errcode.IO, err, "read run %s", path)
}

// ref names the run for a diff.
func (r *RunData) ref() RunRef {
	ref := RunRef{Path: r.Path, Cases: len(r.caseKeys())}
	for _, row := range r.Results {
		ref.RunID = row.RunID
		break
	}
	if ref.RunID == "" {
		for _, row := range r.Scores {
			ref.RunID = row.RunID
			break
		}
	}
	return ref
}

// caseKeys are the run's cases: its results rows, else its scored cases.
func (r *RunData) caseKeys() map[CaseKey]bool {
	keys := map[CaseKey]bool{}
	for _, row := range r.Results {
		keys[row.Key()] = true
	}
	if r.Results == nil {
		for _, s := range r.Scores {
			keys[s.Key()] = true
		}
	}
	return keys
}

// outcomes maps each scorer, and OverallScorer, to whether each case it
// scored passed. overall comes from the results' status (passed or failed;
// other statuses are unscored), else from the scores (all passed).
func (r *RunData) outcomes() map[string]map[CaseKey]bool {
	out := map[string]map[CaseKey]bool{OverallScorer: {}}
	for _, s := range r.Scores {
		name := s.Scorer
		if name == OverallScorer { // a scorer the manifest named "overall"
			name += " (scorer)"
		}
		m := out[name]
		if m == nil {
			m = map[CaseKey]bool{}
			out[name] = m
		}
		m[s.Key()] = s.Passed()
	}
	overall := out[OverallScorer]
	if r.Results != nil {
		for _, row := range r.Results {
			if row.Status == StatusPassed || row.Status == StatusFailed {
				overall[row.Key()] = row.Status == StatusPassed
			}
		}
		return out
	}
	for _, s := range r.Scores {
		k := s.Key()
		prev, seen := overall[k]
		overall[k] = (prev || !seen) && s.Passed()
	}
	return out
}

// Summary aggregates the run's rows as the run did at its end. It needs the
// results file; wall time is the span of the cases' own times.
func (r *RunData) Summary() *Summary {
	var s Summary
	r.feed(&s)
	return &s
}

// feed adds the run's cases to s as the collector does while the run
// goes: each (case, epoch, variant) once, by its last attempt with that
// attempt's scores; an earlier attempt of a retried case adds only what
// it spent (Summary.AddEarlier).
func (r *RunData) feed(s *Summary) {
	type attemptKey struct {
		CaseKey
		attempt int32
	}
	scores := map[attemptKey][]ScoreRow{}
	for _, sc := range r.Scores {
		k := attemptKey{sc.Key(), max(sc.Attempt, 1)}
		scores[k] = append(scores[k], sc)
	}
	final := finalAttempts(r.Results)
	for i, row := range r.Results {
		if final[row.Key()] != i {
			s.AddEarlier(row)
			continue
		}
		s.AddCase(row, scores[attemptKey{row.Key(), max(row.Attempt, 1)}])
	}
}
