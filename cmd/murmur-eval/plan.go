package main

import (
	"errors"
	"fmt"
	"io"
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
func scoringPlan(o options, env map[string]string, ds *datasets.Dataset, stderr io.Writer) (*scoring.Plan, error) {
	path := filepath.Join(o.capsuleDir, capsule.ManifestFile)
	var cfg scoring.Config
	if m := readManifest(o.capsuleDir, env); m != nil {
		cfg = scoring.FromEval(m.Observability.Eval)
		for _, w := range m.Warnings {
			fmt.Fprintf(stderr, "murmur-eval: warning: %s: %s\n", path, w)
		}
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(stderr, "murmur-eval: warning: %s: %s\n", path, w)
	}
	plan := &scoring.Plan{Config: cfg, CheckTimeout: o.checkTimeout, PATH: env["PATH"]}
	var errs []error
	ignored := 0
	for _, c := range ds.Cases {
		_, ok, err := plan.Expected(c.Expected)
		var e *errcode.Error
		switch {
		case errors.As(err, &e):
			errs = append(errs, e.At(fmt.Sprintf("%s:%d", ds.Path, c.Line)))
		case err != nil:
			errs = append(errs, err)
		case !ok && len(c.Expected) > 0 && string(c.Expected) != "null":
			ignored++
		}
	}
	if len(errs) > 0 {
		if len(errs) > maxExpectedErrors {
			errs = append(errs[:maxExpectedErrors], fmt.Errorf("... and %d more", len(errs)-maxExpectedErrors))
		}
		return nil, errcode.Wrap(errcode.EvalDataset, errors.Join(errs...), "bad expected fields in %s", ds.Path).
			WithHint("see docs/expected.md for the expected field's schema")
	}
	if ignored > 0 {
		fmt.Fprintf(stderr, "murmur-eval: warning: %d cases have an expected value murmur-eval does not read (not an object with result_*, files or check); the manifest's scorers alone score them (docs/expected.md)\n", ignored)
	}
	return plan, nil
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
