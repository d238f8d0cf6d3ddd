package main

import (
	"fmt"
	"io"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// configWarnings prints the warnings about a run's inputs (unknown keys of
// murmur.yaml and of artifact manifests, expected values murmur-eval does
// not read, dropped scorers) and counts them, so --strict can refuse the
// run before any case starts. The host's W-SEC notes are not among them:
// they describe the sandbox on this machine, not a mistake in the inputs
// (RATIONALE.md).
type configWarnings struct {
	w io.Writer
	n int
}

// add prints one warning line.
func (c *configWarnings) add(format string, args ...any) {
	c.n++
	fmt.Fprintf(c.w, "murmur-eval: warning: "+format+"\n", args...)
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
