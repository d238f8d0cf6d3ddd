package collect

import (
	"errors"
	"time"

	"github.com/murmur-nexus/murmur-eval/gates"
	"github.com/murmur-nexus/murmur-eval/reports"
)

// Ending is how a finished run, or a merge, is judged and reported.
type Ending struct {
	Dir      string           // the run folder, absolute
	Out      string           // the run folder as given, the diff's head path
	Baseline *reports.RunData // --baseline's run; nil for none
	Limits   reports.ReadLimits
	Gates    gates.Options
	Started  time.Time // junit.xml's timestamp
}

// Finish judges the run whose digest is d and writes its report files
// (WriteReports). Only a run that completed (every case ran, its files
// were written) is compared with the baseline (its results read back from
// Dir) and has the gates applied: the verdict of one that did not is empty,
// and so is a run whose results cannot be read back (the error says why).
// The comparison and the gates are recorded in d. The baseline gate
// compares the runs without their uncalibrated judge scorers (d.Judges),
// the --fail-under gate takes d.Gated's pass rate when there are any.
func (e Ending) Finish(d *reports.Digest, junit *reports.JUnit, completed bool) (*reports.DiffReport, gates.Verdict, error) {
	var diff, gated *reports.DiffReport
	var v gates.Verdict
	var err error
	if completed && e.Baseline != nil {
		head, rerr := reports.ReadRunLimited(e.Dir, e.Limits)
		if rerr != nil {
			err = rerr
		} else {
			diff = reports.Diff(e.Baseline, head, e.Gates.DiffOptions())
			diff.Head.Path = e.Out
			d.Baseline, gated = diff, diff
			// The gate compares the runs without the judge scorers not
			// calibrated; the report shows every scorer.
			if base, head, ok := gates.WithoutUncalibratedJudges(e.Baseline, head, gates.KeepJudge(d)); ok {
				gated = reports.Diff(base, head, e.Gates.DiffOptions())
				gated.Head.Path = e.Out
			}
		}
	}
	if completed && err == nil {
		v = gates.Evaluate(d, e.Gates, gated)
		d.Gates = v.Gates
	}
	return diff, v, errors.Join(err, WriteReports(e.Dir, d, junit, e.Started))
}
