package launch

import (
	"bytes"
	"encoding/json"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/scoring"
	"github.com/murmur-nexus/murmur-eval/session"
)

// The end-of-case checks of a session folder (session.Session.Close:
// what is planted at the appended logs' names, whether the trace's name
// still holds it) look for what untrusted code left there. In a case
// where none was handed the folder they can only find murmur-eval's own
// files, so Launch lets Close skip them (session.Session.Untouched).
// Package launch is where a session's untrusted code is launched: every
// launch marks the case's toolbox reached BEFORE it hands the folder
// over (toolbox.Call for any call at all, runGuest, RunScript,
// runModule, run), so a launch that fails half way still counts.
// RATIONALE.md, "Why skip the planted-file checks of a session no
// untrusted code reached?".

// reach records that the session folder may now be handed to code
// murmur-eval does not trust.
func (t *toolbox) reach() { t.reached.Store(true) }

// untouched reports that no launch through t has reached the session
// folder.
func (t *toolbox) untouched() bool { return !t.reached.Load() }

// untouchedFunc is ses's Untouched: t's flag when every way untrusted
// code has into the case's session folder goes through t, and nil (the
// checks run) otherwise: a process CLI, hooks and a script capsule
// always reach it, and so do the dataset line's setup command (run in it
// by Stage, before Launch) and its expected.check (run in it by Report,
// before the session is closed), none of them through t.
func untouchedFunc(c *pipeline.Case, t *toolbox, ses *session.Session) func() bool {
	if ses.Process != nil || ses.Hooks != nil || ses.Script != nil || datasetCommands(c) {
		return nil
	}
	return t.untouched
}

// datasetCommands reports whether the case's dataset line may run a
// command in its session folder: a setup, or an expected.check. A line
// that cannot be read counts as one.
func datasetCommands(c *pipeline.Case) bool {
	in, err := pipeline.InputOf[datasets.Case](c)
	if err != nil {
		return true
	}
	return in.Setup != nil || hasCheck(in.Expected)
}

// hasCheck reports whether expected may hold a check: an object with a
// "check" key, whatever the rest (the Report stage's scoring.Plan runs
// one only when the value also parses, so this says yes at least as
// often), without the whole parse (regular expressions compiled). A
// value that does not decode counts as one.
func hasCheck(expected json.RawMessage) bool {
	expected = bytes.TrimSpace(expected)
	if len(expected) == 0 || expected[0] != '{' {
		return false // not an object: not murmur-eval's (scoring.ParseExpected)
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(expected, &fields) != nil {
		return true
	}
	_, ok := fields[scoring.TypeCheck]
	return ok
}
