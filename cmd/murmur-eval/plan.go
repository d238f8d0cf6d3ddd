package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/scoring"
)

// maxExpectedErrors is how many bad expected fields one error lists.
const maxExpectedErrors = 20

// scoringPlan builds the run's scoring plan: observability.eval from the
// capsule's manifest, the check command's time limit and PATH. The
// manifest's warnings (murmur prints them while parsing: unknown scorer
// types among them) and the plan's own are printed once, here. It then
// checks every case's expected field, so that a bad one stops the run
// before any case starts, naming file:line.
func scoringPlan(o options, env map[string]string, ds *datasets.Dataset, warn *configWarnings) (*scoring.Plan, error) {
	path := filepath.Join(o.capsuleDir, capsule.ManifestFile)
	var cfg scoring.Config
	if m := readManifest(o.capsuleDir, env); m != nil {
		cfg = scoring.FromEval(m.Observability.Eval)
		for _, w := range m.Warnings {
			warn.add("%s: %s", path, w)
		}
		for _, u := range m.UnknownKeys {
			warn.add("%s", u)
		}
	}
	for _, w := range cfg.Warnings {
		warn.add("%s: %s", path, w)
	}
	plan := &scoring.Plan{Config: cfg, CheckTimeout: o.checkTimeout, PATH: env["PATH"]}
	var errs []error
	var unread []unreadExpected
	for c, err := range ds.All() {
		if err != nil {
			return nil, err
		}
		_, ok, err := plan.Expected(c.Expected)
		var e *errcode.Error
		switch {
		case errors.As(err, &e):
			errs = append(errs, e.At(fmt.Sprintf("%s:%d", ds.Path, c.Line)))
		case err != nil:
			errs = append(errs, err)
		case !ok && len(c.Expected) > 0 && string(c.Expected) != "null":
			unread = append(unread, unreadExpected{caseID: c.ID, where: fmt.Sprintf("%s:%d", ds.Path, c.Line), keys: scoring.UnreadKeys(c.Expected)})
		}
	}
	if len(errs) > 0 {
		if len(errs) > maxExpectedErrors {
			errs = append(errs[:maxExpectedErrors], fmt.Errorf("... and %d more", len(errs)-maxExpectedErrors))
		}
		return nil, errcode.Wrap(errcode.EvalDataset, errors.Join(errs...), "bad expected fields in %s", ds.Path).
			WithHint("see docs/expected.md for the expected field's schema")
	}
	warnUnread(unread, warn)
	return plan, nil
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
func warnUnread(unread []unreadExpected, warn *configWarnings) {
	if len(unread) == 0 {
		return
	}
	for _, u := range unread[:min(len(unread), unreadShown)] {
		if len(u.keys) == 0 {
			warn.add("%s: case %q: expected is not an object murmur-eval reads (result_*, files, check); the manifest's scorers alone score it (docs/expected.md)", u.where, u.caseID)
			continue
		}
		for _, k := range u.keys {
			hint := ""
			if k.Suggest != "" {
				hint = fmt.Sprintf(" (did you mean %q?)", k.Suggest)
			}
			warn.add("%s: case %q: unknown key %q in expected%s; murmur-eval reads none of its keys, so the manifest's scorers alone score it (docs/expected.md)", u.where, u.caseID, k.Key, hint)
		}
	}
	if more := len(unread) - unreadShown; more > 0 {
		warn.add("... and %s more with an expected value murmur-eval does not read (%d in all)", plural(more, "case"), len(unread))
	}
}

// readManifest parses the capsule's manifest as the Resolve stage does
// (capsule.LoadProjectManifest); nil when it cannot, for Resolve then
// refuses the capsule with the right code and a row per case.
func readManifest(dir string, env map[string]string) *capsule.Manifest {
	m, err := capsule.LoadProjectManifest(dir, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		return nil
	}
	return m
}
