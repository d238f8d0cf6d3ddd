package main

import (
	"fmt"
	"io"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/survey"
)

// configWarnings prints the warnings about a run's inputs (unknown keys of
// murmur.yaml and of artifact manifests, expected values murmur-eval does
// not read, dropped scorers, murmur's refusals) and keeps count, so that
// what refuses the run does before any case starts. Which warning refuses
// is the survey's decision (survey.Warning.Refuses): those are held and
// printed as errors by refuse, unless --run-anyway lets them through as
// warnings; --strict refuses any. The host's W-SEC notes are not among
// them: they describe the sandbox on this machine, not a mistake in the
// inputs (RATIONALE.md).
type configWarnings struct {
	w io.Writer
	// runAnyway is --run-anyway: refusals are printed as warnings.
	runAnyway bool
	n         int              // warnings printed
	held      []survey.Warning // refusals not yet printed
	// ranDespite are the codes of the refusals --run-anyway let through,
	// in the order printed.
	ranDespite []string
}

// add prints one warning, or holds it when it refuses the run.
func (c *configWarnings) add(w survey.Warning) {
	if w.Refuses() {
		if !c.runAnyway {
			c.held = append(c.held, w)
			return
		}
		c.ranDespite = append(c.ranDespite, errcode.Code(w.Err))
	}
	c.n++
	fmt.Fprintln(c.w, "murmur-eval: "+errcode.FormatWarning(w.Err))
}

// refuse returns the refusal of the run by the warnings held, nil when
// none is. It prints a line saying no case was started and every refusal
// but the last as an error; the caller prints the returned one, the last
// thing the run prints.
func (c *configWarnings) refuse() error {
	if len(c.held) == 0 {
		return nil
	}
	which := "the error below (--run-anyway, MURMUR_EVAL_RUN_ANYWAY, runs with it as a warning)"
	if len(c.held) > 1 {
		which = fmt.Sprintf("the %d errors below (--run-anyway, MURMUR_EVAL_RUN_ANYWAY, runs with them as warnings)", len(c.held))
	}
	fmt.Fprintf(c.w, "murmur-eval: no case was started: the run is refused for %s\n", which)
	last := len(c.held) - 1
	for _, w := range c.held[:last] {
		fmt.Fprintln(c.w, errcode.Format(w.Err))
	}
	return c.held[last].Err
}

// printHeld prints the refusals held as errors, when another error stops
// the run first.
func (c *configWarnings) printHeld() {
	for _, w := range c.held {
		fmt.Fprintln(c.w, errcode.Format(w.Err))
	}
	c.held = nil
}

// strict returns the refusal --strict makes of the warnings printed, nil
// when there were none.
func (c *configWarnings) strict() error {
	if c.n == 0 {
		return nil
	}
	return errcode.New(errcode.StrictWarning, "--strict: %s above refused the run; no case was started", plural(c.n, "warning")).
		WithHint("fix what each warning names, or run without --strict (MURMUR_EVAL_STRICT) to let murmur's defaults apply")
}
