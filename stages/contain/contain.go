// Package contain is the Contain stage: it decides what the case's sandbox
// allows. The class comes from the run's host probe (Verify made it once,
// before anything was unpacked, and refused an unmet floor there): scoped
// where Landlock is really enforced, advisory otherwise or with
// workdir_exec, never sealed. WASM guests see only their session folder (or
// their artifact's filesystem.scope inside it), get no host environment
// beyond capabilities.env.allow (credential-shaped and strip_env names
// removed) and murmur's MURMUR_* identity variables, and no sockets. Shell
// and native tools get murmur's rebuilt subprocess environments, the
// capsule's resources, and their own network namespace when network.allow
// is empty.
package contain

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/stages/resolve"
	"github.com/murmur-nexus/murmur-eval/stages/staging"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// Name is the stage's name in the graph.
const Name = "contain"

// Result is the key of the stage's result, the case's *Policy.
var Result = pipeline.NewKey[*Policy](Name) //nolint:gochecknoglobals // a constant key (Go has no const of a generic type)

// Decl declares the stage to the graph (package stages wires the table).
var Decl = pipeline.Decl{Name: Name, Produces: Result, Requires: []string{resolve.Name, verify.Name, staging.Name}} //nolint:gochecknoglobals // a declaration, as go/analysis's Analyzer values

// Policy is what Contain decided a case's sandbox allows.
type Policy struct {
	Declared string // the manifest's containment floor, "advisory" when absent
	Achieved string // the class this host gives the case
	Root     string // the host folder a guest sees as "/": the session dir
	// Layer is the overlaid session's upper layer ("" when the session is
	// not an overlay): the workdir guard measures it (sandbox.Proc.Layer).
	Layer    string
	Env      []string
	Deadline time.Duration // per tool call: capabilities.limits.deadline_seconds

	// ShellEnv and NativeEnv are the whole environments of shell tools
	// (with the MURMUR_* values) and of native tools (without); nil when
	// no subprocess can run (Verify made no Spawner), as nothing reads
	// them then.
	ShellEnv, NativeEnv []string
	// Resources bound every subprocess (rlimits, workdir guard).
	Resources   capsule.Resources
	WorkdirExec bool
	// Isolate: network.allow is empty, so subprocesses get their own
	// network namespace.
	Isolate bool
	// Grants is murmur's effective_grants object for session_start,
	// encoded.
	Grants json.RawMessage
}

// Stage is the Contain stage. It is safe for concurrent use.
type Stage struct {
	hostEnv map[string]string
	// shared is what Run derives from the run's shared results alone:
	// the same for every case, so made once per run (BENCHMARKS.md,
	// issue 19: encoding the grants was 4% of a waiting case's CPU).
	shared atomic.Pointer[sharedPolicy]
}

// sharedPolicy is the part of a Policy that depends only on the capsule
// and the host probe, with the results it was made from.
type sharedPolicy struct {
	capsule *resolve.Capsule
	toolset *verify.Toolset
	cls     sandbox.Containment
	grants  json.RawMessage
	env     []string // capabilities.env.allow's part of Policy.Env
	// secrets is the run's credential values (sandbox.RunSecrets): every
	// environment Run builds is filtered by them, whatever names it.
	secrets *sandbox.Secrets
	// dropped are the variables env.allow named whose values held one.
	dropped []sandbox.Dropped
}

// sharedFor returns the shared part for these results, made on first use.
// Two cases that start together may both make it; either is kept.
func (s *Stage) sharedFor(cap *resolve.Capsule, ts *verify.Toolset) (*sharedPolicy, error) {
	cap = cap.Run() // a variant's differs in its inference block only, not in what this reads
	if sh := s.shared.Load(); sh != nil && sh.capsule == cap && sh.toolset == ts {
		return sh, nil
	}
	caps := cap.Manifest.Capabilities
	cls := sandbox.Classify(ts.Host, caps)
	if err := cls.Err(); err != nil {
		return nil, err
	}
	egress := "no-subprocesses"
	if ts.Spawner != nil {
		egress = ts.Spawner.EgressMode(caps.Network == nil || len(caps.Network.Allow) == 0)
	}
	g, err := trace.Grants(grants(cls, caps, egress)).MarshalJSON()
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "encode effective_grants")
	}
	var apiKey string
	if inf := cap.Manifest.Inference; inf != nil {
		apiKey = inf.APIKey
	}
	secrets := sandbox.RunSecrets(s.hostEnv, apiKey)
	env, dropped := secrets.Filter(sandbox.FilterEnv(s.hostEnv, caps.Env.Allow, caps.Shell.StripEnv))
	sh := &sharedPolicy{capsule: cap, toolset: ts, cls: cls, grants: g, env: env, secrets: secrets, dropped: dropped}
	s.shared.Store(sh)
	return sh, nil
}

// New returns a Contain stage; hostEnv is the evaluator's environment, the
// only source of capabilities.env.allow and baseline values.
func New(hostEnv map[string]string) *Stage { return &Stage{hostEnv: hostEnv} }

// Name returns "contain".
func (s *Stage) Name() string { return Name }

// Run stores the case's Policy, or refuses the case's containment floor.
func (s *Stage) Run(_ context.Context, c *pipeline.Case) error {
	cap, err := pipeline.ResultOf(c, resolve.Result)
	if err != nil {
		return err
	}
	ts, err := pipeline.ResultOf(c, verify.Result)
	if err != nil {
		return err
	}
	st, err := pipeline.ResultOf(c, staging.Result)
	if err != nil {
		return err
	}
	m := cap.Manifest
	caps := m.Capabilities
	sh, err := s.sharedFor(cap, ts)
	if err != nil {
		return err
	}
	cls := sh.cls
	// The subprocesses' HOME, which Stage created when a subprocess can run.
	home := filepath.Join(c.SessionDir, staging.CapsuleHome)
	identity, droppedIdentity := sh.secrets.Filter(identityEnv(m, c.SessionID))
	dropped := slices.Concat(sh.dropped, droppedIdentity)
	// workdir_max_bytes counts what the case adds, not the workspace it
	// started with (docs/workspaces.md): under an overlay the guard
	// measures the upper layer (Layer), else the limit is raised.
	res := caps.Resources
	res.WorkdirMaxBytes = st.Workspace.WorkdirMaxBytes(res.WorkdirMaxBytes)
	res.WorkdirMaxFiles = st.WorkdirMaxFiles // --workdir-max-files, raised the same way
	var shellEnv, nativeEnv []string
	if ts.Spawner != nil {
		// Built per case only where a subprocess can run: the two
		// environments were 6% of a WASM-only case's allocations
		// (BENCHMARKS.md, issue 19, session 8).
		var d1, d2 []sandbox.Dropped
		shellEnv, d1 = sh.secrets.Filter(sandbox.SubprocessEnv(s.hostEnv, identity, caps.Shell.BaselineEnv, caps.Shell.StripEnv, home))
		nativeEnv, d2 = sh.secrets.Filter(sandbox.SubprocessEnv(s.hostEnv, nil, nil, nil, home))
		dropped = slices.Concat(dropped, d1, d2)
	}
	noteDropped(c.SessionDir, dropped)
	pipeline.Store(c, Result, &Policy{
		Declared:    string(cls.Declared),
		Achieved:    string(cls.Achieved),
		Root:        c.SessionDir,
		Layer:       st.Workspace.UpperDir(),
		Env:         slices.Concat(sh.env, identity),
		Deadline:    time.Duration(caps.Limits.DeadlineSeconds) * time.Second,
		ShellEnv:    shellEnv,
		NativeEnv:   nativeEnv,
		Resources:   res,
		WorkdirExec: caps.Filesystem.WorkdirExec,
		Isolate:     caps.Network == nil || len(caps.Network.Allow) == 0,
		Grants:      sh.grants,
	})
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
