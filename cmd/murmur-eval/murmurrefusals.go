package main

import (
	"github.com/murmur-nexus/murmur-eval/survey"
)

// warnMurmurRefusals adds, before any case starts, what `mur eval run`
// would refuse or hang on in a capsule murmur-eval runs (survey.MurmurRefusals:
// E-RUN-006, E-EVL-081, E-EVL-080). They refuse the run unless --run-anyway;
// the inference ones are left out of a --replay run, which reaches no
// endpoint and runs no driver, and are only warned about under --driver
// builtin, which runs neither the driver component nor its network grant
// (RATIONALE.md, "Why are murmur's refusals refusals in murmur-eval?").
func warnMurmurRefusals(o options, env map[string]string, warn *configWarnings) {
	m := survey.ReadManifest(o.capsuleDir, env)
	if m == nil {
		return // the capsule's own error is printed when it is prepared
	}
	for _, w := range survey.MurmurRefusals(m, o.replay != "", o.driver == driverBuiltin) {
		warn.add(w)
	}
}
