// Package survey is what a run needs of every case before any starts,
// gathered in the dataset's one pass: each expected field checked against
// the scoring plan (built here from the capsule's manifest), the files the
// lines name (the fingerprint's inputs part), and which cases run a
// dataset command.
package survey

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/runfolder"
	"github.com/murmur-nexus/murmur-eval/scoring"
)

// maxExpectedErrors is how many bad expected fields one error lists.
const maxExpectedErrors = 20

// NewPlan builds the run's scoring plan: observability.eval from the
// capsule's manifest, the check command's time limit and PATH. It returns
// the manifest's warnings (murmur prints them while parsing: unknown
// scorer types among them) and the plan's own, for the caller to print
// once the dataset has loaded.
func NewPlan(capsuleDir string, env map[string]string, checkTimeout time.Duration) (*scoring.Plan, []Warning) {
	path := filepath.Join(capsuleDir, capsule.ManifestFile)
	var cfg scoring.Config
	var warnings []Warning
	if m := ReadManifest(capsuleDir, env); m != nil {
		cfg = scoring.FromEval(m.Observability.Eval)
		for _, w := range m.Warnings {
			warnings = append(warnings, Notef("%s: %s", path, w))
		}
		if e := m.Observability.Eval; e != nil {
			for _, s := range e.Skipped {
				warnings = append(warnings, skipped(s))
			}
		}
		for _, u := range m.UnknownKeys {
			warnings = append(warnings, UnknownKey(u))
		}
	}
	for _, w := range cfg.Warnings {
		warnings = append(warnings, Notef("%s: %s", path, w))
	}
	return &scoring.Plan{Config: cfg, CheckTimeout: checkTimeout, PATH: env["PATH"]}, warnings
}

// Survey gathers what the run needs of every case before any starts, in
// the dataset's one pass (datasets.Options.Visit): each expected field
// checked against the plan, so that a bad one stops the run naming
// file:line; the files the lines name (the fingerprint's inputs part);
// which cases run a dataset command (a setup, or an expected check)
// through the launcher.
type Survey struct {
	plan     *scoring.Plan
	dataset  string // its path, for locations
	errs     []error
	unread   []unreadExpected
	Files    runfolder.InputFiles // the files the lines name
	commands []int                // indices of the cases that run a command
	judged   []int                // indices of the cases with an expected.rubric
}

// New is a survey of the dataset at path dataset against plan.
func New(plan *scoring.Plan, dataset string) *Survey {
	return &Survey{plan: plan, dataset: dataset, Files: runfolder.InputFiles{}}
}

// Visit is the survey's datasets.Options.Visit.
func (s *Survey) Visit(i int, c datasets.Case) {
	s.Files.Add(c)
	e, ok, err := s.plan.Expected(c.Expected)
	var ce *errcode.Error
	switch {
	case errors.As(err, &ce):
		s.errs = append(s.errs, ce.At(fmt.Sprintf("%s:%d", s.dataset, c.Line)))
	case err != nil:
		s.errs = append(s.errs, err)
	case !ok && len(c.Expected) > 0 && string(c.Expected) != "null":
		s.unread = append(s.unread, unreadExpected{caseID: c.ID, where: fmt.Sprintf("%s:%d", s.dataset, c.Line), keys: scoring.UnreadKeys(c.Expected)})
	}
	if c.Setup != nil || (err == nil && ok && e.Check != nil) {
		s.commands = append(s.commands, i)
	}
	if err == nil && ok && e.Rubric != nil {
		s.judged = append(s.judged, i)
	}
}

// CheckExpected is the error of the bad expected fields, if any, and the
// warnings naming the cases whose expected value murmur-eval does not read
// (Unapplied: the check it was written for is off).
func (s *Survey) CheckExpected() (warnings []Warning, err error) {
	if errs := s.errs; len(errs) > 0 {
		if len(errs) > maxExpectedErrors {
			errs = append(errs[:maxExpectedErrors], fmt.Errorf("... and %d more", len(errs)-maxExpectedErrors))
		}
		return nil, errcode.Wrap(errcode.EvalDataset, errors.Join(errs...), "bad expected fields in %s", s.dataset).
			WithHint("see docs/expected.md for the expected field's schema")
	}
	return warnUnread(s.unread), nil
}

// RunsCommands reports whether a selected case runs a dataset command.
func (s *Survey) RunsCommands(selected datasets.Picked) bool {
	return slices.ContainsFunc(s.commands, selected.Has)
}

// Judged reports whether the run needs a judge model: the manifest has an
// llm_judge scorer, or a selected case an expected.rubric.
func (s *Survey) Judged(selected datasets.Picked) bool {
	return s.plan.NeedsJudge() || slices.ContainsFunc(s.judged, selected.Has)
}

// unreadExpected is a case whose expected value murmur-eval does not read.
type unreadExpected struct {
	caseID, where string
	keys          []scoring.KeyHint // the object's keys, when it is one
}

// unreadShown is how many cases with an unread expected value are named.
const unreadShown = 5

// warnUnread names the first cases whose expected value murmur-eval does
// not read: an object's keys each with the key it most likely meant, then
// the count. murmur leaves expected unused, so such a value is legal; but
// "result_equal" for "result_equals" would silently score nothing.
func warnUnread(unread []unreadExpected) []Warning {
	if len(unread) == 0 {
		return nil
	}
	var warn []Warning
	for _, u := range unread[:min(len(unread), unreadShown)] {
		if len(u.keys) == 0 {
			w := unapplied("%s: case %q: expected is not an object murmur-eval reads (result_*, files, check, rubric); the manifest's scorers alone score it (docs/expected.md)", u.where, u.caseID)
			w.Err = w.Err.WithHint(`to check the answer, write expected as an object, e.g. {"result_contains": "..."} or {"result_equals": "..."}; --run-anyway runs the dataset as mur eval run does, scored by the manifest's scorers alone`)
			warn = append(warn, w)
			continue
		}
		for _, k := range u.keys {
			hint := ""
			if k.Suggest != "" {
				hint = fmt.Sprintf(" (did you mean %q?)", k.Suggest)
			}
			warn = append(warn, unapplied("%s: case %q: unknown key %q in expected%s; murmur-eval reads none of its keys, so the manifest's scorers alone score it (docs/expected.md)", u.where, u.caseID, k.Key, hint))
		}
	}
	if more := len(unread) - unreadShown; more > 0 {
		warn = append(warn, unapplied("... and %s more with an expected value murmur-eval does not read (%d in all)", plural(more, "case"), len(unread)))
	}
	return warn
}

// ReadManifest parses the capsule's manifest as the Resolve stage does
// (capsule.LoadProjectManifest); nil when it cannot, for Resolve then
// refuses the capsule with the right code and a row per case.
func ReadManifest(dir string, env map[string]string) *capsule.Manifest {
	m, err := capsule.LoadProjectManifest(dir, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		return nil
	}
	return m
}

// plural is n and noun, the noun plural unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
