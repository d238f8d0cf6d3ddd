// Package contain is the Contain stage: it decides what the case's sandbox
// allows. For now every case runs in class advisory: WASM guests see only
// their session folder, get no host environment beyond capabilities.env.allow
// (credential-shaped names stripped) and murmur's MURMUR_* identity
// variables, and no sockets. A declared scoped or sealed floor is refused
// with E-CAP-003, as murmur refuses a floor the host cannot meet.
package contain

import (
	"context"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// Name is the stage's name in the graph.
const Name = "contain"

// achieved is the class murmur-eval provides today.
const achieved = "advisory"

// Stage is the Contain stage. It is safe for concurrent use.
type Stage struct {
	hostEnv map[string]string
}

// New returns a Contain stage; hostEnv is the evaluator's environment, the
// only source of capabilities.env.allow values.
func New(hostEnv map[string]string) *Stage { return &Stage{hostEnv: hostEnv} }

// Name returns "contain".
func (s *Stage) Name() string { return Name }

// Run sets c.Policy, or refuses the case's containment floor.
func (s *Stage) Run(_ context.Context, c *pipeline.Case) error {
	if c.Capsule == nil {
		return errcode.New(errcode.Internal, "contain: resolve did not run")
	}
	m := c.Capsule.Manifest
	declared := string(m.Capabilities.Containment)
	if declared == "" {
		declared = achieved
	}
	if declared != achieved {
		return errcode.New(errcode.CapContainment,
			"declared containment class '%s' is not achievable on this host (achieved: '%s'): murmur-eval does not enforce Landlock containment yet", declared, achieved).
			WithHint("lower capabilities.containment to 'advisory' for the evaluation, or run the capsule with mur")
	}
	c.Policy = &pipeline.Policy{
		Declared: declared,
		Achieved: achieved,
		Root:     c.SessionDir,
		Env:      append(sandbox.FilterEnv(s.hostEnv, m.Capabilities.Env.Allow, nil), identityEnv(m, c.SessionID)...),
		Deadline: time.Duration(m.Capabilities.Limits.DeadlineSeconds) * time.Second,
	}
	return nil
}

// identityEnv is murmur's runtime environment for tools (murmur-session.md
// §2.3), applied last so nothing can shadow it. The API key is never given
// to tools: murmur-eval's providers run on the host, not in a guest.
func identityEnv(m *capsule.Manifest, sessionID string) []string {
	env := []string{
		"MURMUR_CAPSULE_NAME=" + m.Name,
		"MURMUR_CAPSULE_VERSION=" + m.Version,
		"MURMUR_SESSION_ID=" + sessionID,
	}
	if inf := m.Inference; inf != nil {
		env = append(env,
			"MURMUR_INFERENCE_TRANSPORT="+string(inf.Transport),
			"MURMUR_INFERENCE_ENDPOINT="+inf.Endpoint,
			"MURMUR_INFERENCE_MODEL="+inf.Model,
			"MURMUR_INFERENCE_DRIVER="+inf.DriverArtifact,
		)
		if len(inf.DriverConfig) > 0 {
			env = append(env, "MURMUR_INFERENCE_DRIVER_CONFIG="+string(inf.DriverConfig))
		}
	}
	return env
}
