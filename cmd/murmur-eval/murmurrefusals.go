package main

import (
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/survey"
)

// warnMurmurRefusals warns, before any case starts, about what `mur eval
// run` would refuse or hang on in a capsule murmur-eval runs: a driver no
// artifacts: entry declares (E-RUN-006), an endpoint the driver's
// network.allow does not cover (E-EVL-081), a lifecycle that waits for A2A
// tasks forever (E-EVL-080). Each is murmur's code and text where murmur
// has them. The inference ones are left out of a --replay run, which
// reaches no endpoint and would run no driver either. They are warnings
// about the inputs, so --strict refuses them (RATIONALE.md, "Why are
// murmur's refusals warnings in murmur-eval?").
func warnMurmurRefusals(o options, env map[string]string, warn *configWarnings) {
	m := survey.ReadManifest(o.capsuleDir, env)
	if m == nil {
		return // the capsule's own error is printed when it is prepared
	}
	if o.replay == "" {
		for _, e := range m.MurmurInferenceRefusals() {
			warn.add("%s", errcode.Format(e))
		}
	}
	if e := m.MurmurLifecycleRefusal(); e != nil {
		warn.add("%s", errcode.Format(e))
	}
}
