package main

import (
	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/live"
	"github.com/murmur-nexus/murmur-eval/survey"
	"github.com/murmur-nexus/murmur-eval/variant"
)

// warnMurmurRefusals adds, before any case starts, what `mur eval run`
// would refuse or hang on in a capsule murmur-eval runs (survey.MurmurRefusals:
// E-RUN-006, E-EVL-081, E-EVL-080). They refuse the run unless --run-anyway;
// the inference ones are left out of a --replay run, which reaches no
// endpoint and runs no driver, and are only warned about under --driver
// builtin when the built-in provider speaks the driver's API, for it runs
// neither the driver component nor its network grant (RATIONALE.md, "Why
// are murmur's refusals refusals in murmur-eval?").
func warnMurmurRefusals(o options, env map[string]string, warn *configWarnings) {
	m := survey.ReadManifest(o.capsuleDir, env)
	if m == nil {
		return // the capsule's own error is printed when it is prepared
	}
	seen := map[string]bool{}
	for _, vm := range variantManifests(m, o.variants.set) {
		builtin := o.driver == driverBuiltin && builtinSpeaks(vm.Inference)
		for _, w := range survey.MurmurRefusals(vm, o.replay != "", builtin) {
			if s := w.String(); !seen[s] { // the variants share most of the manifest
				seen[s] = true
				warn.add(w)
			}
		}
	}
}

// variantManifests are the manifests the run's cases see: m, or one per
// variant with its inference block (a variant's endpoint, say, is checked
// against the driver's network.allow as the manifest's is). A variant m
// cannot take is refused elsewhere (variantOptions.check) and left out.
func variantManifests(m *capsule.Manifest, set variant.Set) []*capsule.Manifest {
	if set.Len() == 0 || m.Inference == nil {
		return []*capsule.Manifest{m}
	}
	var out []*capsule.Manifest
	for _, v := range set.All() {
		inf, err := v.Apply(m.Inference)
		if err != nil {
			continue
		}
		vm := *m
		vm.Inference = inf
		out = append(out, &vm)
	}
	return out
}

// builtinSpeaks says whether the built-in provider answers for inf's
// driver (murmur's own, or driver.config.api set): for any other, --driver
// builtin still ends every case in E-RUN-006, so the refusal stands.
func builtinSpeaks(inf *capsule.Inference) bool {
	if inf == nil {
		return true
	}
	_, err := live.APIName(inference.Config{DriverArtifact: inf.DriverArtifact, DriverConfig: inf.DriverConfig})
	return err == nil
}
