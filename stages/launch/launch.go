// Package launch is the Launch stage: it opens the case's trace.jsonl, takes
// a model provider for the case, binds the run's compiled tools to the
// case's sandbox policy, and resolves the loop's settings (the system
// prompt among them) from the manifest.
package launch

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/hooks"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/stages/contain"
	"github.com/murmur-nexus/murmur-eval/stages/resolve"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// Name is the stage's name in the graph.
const Name = "launch"

// Result is the key of the stage's result, the case's *session.Session.
var Result = pipeline.NewKey[*session.Session](Name) //nolint:gochecknoglobals // a constant key (Go has no const of a generic type)

// Decl declares the stage to the graph (package stages wires the table).
var Decl = pipeline.Decl{Name: Name, Produces: Result, Requires: []string{resolve.Name, verify.Name, contain.Name}} //nolint:gochecknoglobals // a declaration, as go/analysis's Analyzer values

// Stage is the Launch stage. It is safe for concurrent use.
type Stage struct {
	models  inference.Source
	now     func() time.Time
	env     map[string]string     // WithHostEnv: a process CLI's environment
	http    *http.Client          // WithHTTP: every guest's wasi:http client
	version string                // WithVersion: MURMUR.md's generated-by line
	cli     pipeline.Memo[string] // a process capsule's command, resolved once
	// tools is MURMUR.md's view of the staged tools/ folder, the same for
	// every case whose on-stage hooks rewrote no manifest: read once.
	tools pipeline.Memo[[]toolDir]
	// texts holds *[]byte buffers MURMUR.md's text is built in, reused
	// from one case to the next.
	texts sync.Pool
}

// New returns a Launch stage serving models from src; now is the clock
// the traces use.
func New(src inference.Source, now func() time.Time) *Stage {
	return &Stage{models: src, now: now, version: "dev"}
}

// WithVersion sets the murmur-eval version MURMUR.md names (the binary's
// --version; "dev" by default). It returns s.
func (s *Stage) WithVersion(v string) *Stage {
	s.version = v
	return s
}

// WithHTTP sets the client every component guest's wasi:http requests
// (tools, the driver) are sent through: the run's one client, carrying its
// HTTP policy (inference/httpapi.Client.GuestClient). Without it each
// call gets a client of its own. It returns s.
func (s *Stage) WithHTTP(c *http.Client) *Stage {
	s.http = c
	return s
}

// Name returns "launch".
func (s *Stage) Name() string { return Name }

// Run opens the case's session.
func (s *Stage) Run(ctx context.Context, c *pipeline.Case) error {
	cap, err := pipeline.ResultOf(c, resolve.Result)
	if err != nil {
		return err
	}
	ts, err := pipeline.ResultOf(c, verify.Result)
	if err != nil {
		return err
	}
	pol, err := pipeline.ResultOf(c, contain.Result)
	if err != nil {
		return err
	}
	m := cap.Manifest
	tools := &toolbox{set: ts, policy: pol, http: s.http, denied: &session.Denials{}}
	var (
		cfg     session.LoopConfig
		model   inference.Provider
		process *session.ProcessCLI
		script  session.ScriptRunner
	)
	if m.Inference == nil {
		if ts.Script == nil {
			return errcode.New(errcode.RunScriptWasm, "the capsule has no inference block and no script capsule component was compiled")
		}
		var run *scriptRunner
		cfg, run = newScript(m, c, pol, tools)
		script = run
	} else {
		if cfg, err = loopConfig(m, c, pol); err != nil {
			return err
		}
		if err := taskConfig(m, &cfg); err != nil {
			return err
		}
		ic := inference.Case{ID: c.ID, Epoch: c.Epoch, Variant: c.Variant, Workdir: cfg.Workdir, Inference: inferenceConfig(m.Inference),
			Driver: bindDriver(tools, ts.Driver, m.Inference)}
		if model, err = s.models.ForCase(ctx, ic); err != nil {
			return err
		}
		if process, err = s.setupAgent(ctx, m, model); err != nil {
			return err
		}
	}
	tr, err := trace.Create(filepath.Join(c.SessionDir, "trace.jsonl"), c.SessionID, s.now)
	if err != nil {
		return errcode.Wrap(errcode.IO, err, "open trace.jsonl")
	}
	ses := &session.Session{
		Dir:     c.SessionDir,
		Trace:   tr,
		Model:   model,
		Tools:   tools,
		Config:  cfg,
		Process: process,
		Hooks:   s.openHooks(c, ts, tools.denied),
		Denied:  tools.denied,
		Script:  script,
	}
	ses.Untouched = untouchedFunc(c, tools, ses)
	// Stored at once: the executor closes the session (the trace) after
	// the case's last stage, whatever fails below.
	pipeline.Store(c, Result, ses)
	// MURMUR.md after on-stage, as murmur's launch writes it: the tool
	// manifests it lists may have been rewritten by a hook.
	if err := s.stageHooks(ctx, c, ses, m); err != nil {
		return err
	}
	md := murmurMD{
		Manifest: m, Dir: c.SessionDir, SessionID: c.SessionID, Version: s.version, Now: s.now(),
		CompactionHook: ts.Hooks.Bound(hooks.OnCompaction),
	}
	if _, rewritten := ses.Tools.(caseTools); !rewritten {
		md.Tools, _ = s.tools.Get(ctx, func(context.Context) ([]toolDir, error) {
			return append([]toolDir{}, readToolDirs(c.SessionDir)...), nil // never nil: nil means "read"
		})
	}
	err = s.writeMurmurMD(md)
	if err != nil {
		return writeErr(err, "MURMUR.md")
	}
	return nil
}

// writeErr is the error of a session file Launch could not write through
// sessionfs: the failure keeps its own code (E-EVL-040 for a name
// refused, E-IO-001 for a folder gone); only an uncoded one is E-IO-003.
func writeErr(err error, name string) error {
	return errcode.WrapKeep(errcode.IO, err, "write %s", name)
}

func loopConfig(m *capsule.Manifest, c *pipeline.Case, pol *contain.Policy) (session.LoopConfig, error) {
	inf := m.Inference
	prompt, err := systemPrompt(m, c.SessionDir)
	if err != nil {
		return session.LoopConfig{}, err
	}
	return session.LoopConfig{
		CapsuleName:         m.Name,
		CapsuleVersion:      m.Version,
		Model:               inf.Model,
		MaxTurns:            int(inf.MaxTurns),
		MaxTokens:           int(inf.MaxTokens),
		Provider:            providerName(inf),
		Endpoint:            inf.Endpoint,
		SystemPrompt:        prompt,
		Workdir:             c.SessionDir,
		Containment:         pol.Achieved,
		DeclaredContainment: pol.Declared,
		Capabilities:        capabilityNames(m.Capabilities),
		WorkdirExec:         pol.WorkdirExec,
		EffectiveGrants:     pol.Grants,
		IncludeToolOutput:   m.Trace.IncludeToolOutput,
	}, nil
}

// capabilityNames is session_start's capabilities: which of network,
// filesystem and shell have a non-empty policy.
func capabilityNames(caps capsule.Capabilities) []string {
	out := []string{}
	if caps.Network != nil && len(caps.Network.Allow) > 0 {
		out = append(out, "network")
	}
	if caps.Filesystem.Scope != "" {
		out = append(out, "filesystem")
	}
	if len(caps.Shell.Allow) > 0 {
		out = append(out, "shell")
	}
	return out
}

// inferenceConfig is what the model providers need of the manifest's
// inference block.
func inferenceConfig(inf *capsule.Inference) inference.Config {
	return inference.Config{
		Transport:      string(inf.Transport),
		Endpoint:       inf.Endpoint,
		Model:          inf.Model,
		APIKey:         inf.APIKey,
		MaxTokens:      int(inf.MaxTokens),
		DriverArtifact: inf.DriverArtifact,
		DriverConfig:   inf.DriverConfig,
	}
}

// maxPromptBytes bounds a system prompt read from the session folder.
const maxPromptBytes = 16 << 20

// systemPrompt resolves murmur's three exclusive prompt sources: the text,
// a file relative to the manifest, or a prompt artifact's staged skill.md.
// An unreadable file is E-RUN-009.
func systemPrompt(m *capsule.Manifest, sessionDir string) (string, error) {
	inf := m.Inference
	var path string
	switch {
	case inf.SystemPrompt != "":
		return inf.SystemPrompt, nil
	case inf.SystemPromptFile != "":
		path = inf.SystemPromptFile
		if !filepath.IsAbs(path) {
			path = filepath.Join(m.Dir, path)
		}
	case inf.SystemPromptArtifact != "":
		// The session folder may hold what hooks left: read it confined.
		name := "tools/" + inf.SystemPromptArtifact + "/skill.md"
		b, err := sessionfs.ReadFile(sessionDir, name, maxPromptBytes)
		if err != nil {
			return "", errcode.Wrap(errcode.RunSystemPrompt, err, "read system prompt %s", name)
		}
		return string(b), nil
	default:
		return "", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		// murmur's words first; the OS reason without a second copy of the path.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", errcode.Wrap(errcode.RunSystemPrompt, err, "failed to read inference.system_prompt_file at %s", path)
	}
	return string(b), nil
}
