package capsule

import "github.com/murmur-nexus/murmur-eval/errcode"

// MurmurInferenceRefusals returns why `mur eval run` could not get a model
// answer for this capsule (murmur-eval's --driver builtin may: its built-in
// provider serves murmur's own drivers from the host): an inference driver no
// artifacts: entry declares (murmur's E-RUN-006, its text and hint), and an
// endpoint capabilities.network.allow does not cover (murmur's driver is
// denied its first request, and every session ends failed with the
// driver's text; murmur has no code for it, murmur-eval's is E-EVL-081).
// Each message starts with murmur's words after "murmur.yaml: ", the
// position in the file after them. Only transport: http has either.
func (m *Manifest) MurmurInferenceRefusals() []*errcode.Error {
	inf := m.Inference
	if inf == nil || inf.Transport != TransportHTTP {
		return nil
	}
	var out []*errcode.Error
	drv := m.artifact(inf.DriverArtifact)
	if drv == nil {
		out = append(out, didYouMean(errcode.New(errcode.RunDriverAbsent,
			"inference driver '%s' is not installed in the local tool registry (%s: inference.driver.artifact names no artifacts: entry, so mur eval run fails every case)",
			inf.DriverArtifact, m.at.driver).At(ManifestFile).
			WithHint("declare the driver artifact in murmur.yaml artifacts: and run `mur run` to install it, or run murmur-eval with --driver builtin to answer with its built-in provider (murmur-driver-anthropic or -openai)"), inf.DriverArtifact, m.artifactNames(), "declared in artifacts:"))
	}
	rules, _ := m.NetworkRules(drv)
	if target, ok := TargetOf(inf.Endpoint); ok && !Allowed(rules, target) {
		out = append(out, errcode.New(errcode.MurmurEndpointDenied,
			"driver: failed to dispatch HTTP request: ErrorCode::HttpRequestDenied (%s: inference.endpoint %s is not covered by the driver's network.allow, so under mur eval run every session ends failed at its first turn)",
			m.at.endpoint, inf.Endpoint).At(ManifestFile).
			WithHint("add %s to capabilities.network.allow in murmur.yaml (and to the driver artifact's own network.allow if it declares one)", target.Entry()))
	}
	return out
}

// MurmurLifecycleRefusal returns why `mur eval run` would never finish a
// case of this capsule, or nil: lifecycle task_acceptance queue with
// after_task sleep runs task.md and then waits for A2A tasks without end
// (murmur-session.md §1.2), so the session never ends and no eval.jsonl
// is read. murmur has no code for a hang; murmur-eval's is E-EVL-080.
// murmur-eval runs every case as one task and never waits.
func (m *Manifest) MurmurLifecycleRefusal() *errcode.Error {
	l := m.Lifecycle
	if l.TaskAcceptance != TaskAcceptanceQueue || l.AfterTask != AfterTaskSleep {
		return nil
	}
	return errcode.New(errcode.MurmurWouldHang,
		"lifecycle task_acceptance 'queue' with after_task 'sleep' waits for the next A2A task forever after task.md (%s): mur eval run would never finish the first case; murmur-eval runs each case as one task",
		m.at.afterTask).At(ManifestFile).
		WithHint("use after_task: exit (or task_acceptance: single) in the capsule that is evaluated")
}

// artifact returns the artifacts: entry named name, or nil. Any runtime
// counts: murmur looks for tools/<name>/, which staging makes for each.
func (m *Manifest) artifact(name string) *ArtifactDecl {
	for i := range m.Artifacts {
		if m.Artifacts[i].Name == name {
			return &m.Artifacts[i]
		}
	}
	return nil
}
