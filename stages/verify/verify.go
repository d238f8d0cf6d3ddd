// Package verify is the Verify stage: every resolved artifact's bytes are
// hashed and checked against its .sha256 sidecar and the murmur.lock pin,
// its archive is read, and its WASM module compiled. The work is the same
// for every case, so it is done once per run and shared; any mismatch fails
// every case with E-REG-002 and nothing is installed in any session.
package verify

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// Name is the stage's name in the graph.
const Name = "verify"

// Options say where the run's shared tool files and compiled code go.
type Options struct {
	// StagedDir is the run-level folder the shared tool files are written
	// to once; sessions link to them.
	StagedDir string
	// CacheDir is wazero's compilation cache across runs; "" for none.
	CacheDir string
}

// Stage is the Verify stage. It is safe for concurrent use. Close releases
// the WASM engine it creates.
type Stage struct {
	opts Options
	memo pipeline.Memo[verified]
}

type verified struct {
	artifacts []pipeline.Artifact
	tools     *pipeline.Toolset
}

// New returns a Verify stage for one run.
func New(opts Options) *Stage { return &Stage{opts: opts} }

// Name returns "verify".
func (s *Stage) Name() string { return Name }

// Run sets c.Artifacts and c.Toolset, verifying and compiling on first use.
func (s *Stage) Run(ctx context.Context, c *pipeline.Case) error {
	if c.Capsule == nil {
		return errcode.New(errcode.Internal, "verify: resolve did not run")
	}
	cap := c.Capsule
	v, err := s.memo.Get(ctx, func(ctx context.Context) (verified, error) {
		host, scopes, err := preflight(ctx, cap.Manifest)
		if err != nil {
			return verified{}, err
		}
		arts, err := verifyAll(cap.Pins)
		if err != nil {
			return verified{}, err
		}
		limits := cap.Manifest.Capabilities.Limits
		ts, err := prepare(ctx, s.opts, cap.Manifest, arts, sandbox.Config{CacheDir: s.opts.CacheDir, MemoryLimitBytes: limits.MemoryBytes})
		if err != nil {
			return verified{arts, ts}, err
		}
		err = finish(ts, cap.Manifest, host, scopes, filepath.Dir(s.opts.StagedDir))
		return verified{arts, ts}, err
	})
	c.Artifacts, c.Toolset = v.artifacts, v.tools
	return err
}

// Warnings returns murmur's W-SEC warnings for the capsule on this host,
// as "[capsule-runtime] warning[W-SEC-NNN]: text (link)" lines, for the run
// to print once. Call it only after a successful preparation.
func (s *Stage) Warnings() []string {
	v, ok, err := s.memo.Stored()
	if !ok || err != nil || v.tools == nil {
		return nil
	}
	out := make([]string, len(v.tools.Warnings))
	for i, w := range v.tools.Warnings {
		out[i] = "[capsule-runtime] " + w + " (" + diagnosticsLink(w) + ")"
	}
	return out
}

// diagnosticsLink is murmur's documentation anchor for a W-SEC warning.
func diagnosticsLink(warning string) string {
	const base = "https://docs.murmur.nexus/murmur-nexus/murmur/reference/diagnostics/"
	if i := strings.Index(warning, "W-SEC-"); i >= 0 && len(warning) >= i+9 {
		return base + "#" + strings.ToLower(warning[i:i+9])
	}
	return base
}

// Close closes the WASM engine and the subprocess launcher, if made.
func (s *Stage) Close(ctx context.Context) error {
	v, ok, _ := s.memo.Stored()
	if !ok || v.tools == nil {
		return nil
	}
	var cerr error
	if v.tools.Spawner != nil {
		cerr = v.tools.Spawner.Close()
	}
	if v.tools.Engine != nil {
		if err := v.tools.Engine.Close(ctx); err != nil {
			cerr = err
		}
	}
	return cerr
}

// verifyAll checks every artifact before returning any, so a run with one
// bad artifact uses none of them.
func verifyAll(pins []capsule.Pinned) ([]pipeline.Artifact, error) {
	arts := make([]pipeline.Artifact, 0, len(pins))
	for _, p := range pins {
		zip, err := os.ReadFile(p.Resolved.ZipPath)
		if err != nil {
			return nil, errcode.Wrap(errcode.IO, err, "read artifact %s@%s", p.Name, p.Version)
		}
		if err := capsule.Verify(p.Name, p.Version, zip, p.Resolved.SidecarSHA256, p.LockSHA256); err != nil {
			return nil, err
		}
		ar, err := capsule.ReadArchive(p.Name, p.Version, zip, p.Resolved.MaxEntryBytes)
		if err != nil {
			return nil, err
		}
		arts = append(arts, pipeline.Artifact{Pinned: p, SHA256: capsule.SHA256Hex(zip), Archive: ar})
	}
	return arts, nil
}

// UnknownKeys returns the unknown keys of the artifacts' own manifests
// (murmur ignores them; the run warns), in artifact order. Call it only
// after a successful preparation.
func (s *Stage) UnknownKeys() []capsule.UnknownKey {
	v, ok, err := s.memo.Stored()
	if !ok || err != nil {
		return nil
	}
	var out []capsule.UnknownKey
	for _, a := range v.artifacts {
		if a.Archive != nil && a.Archive.Manifest != nil {
			out = append(out, a.Archive.Manifest.UnknownKeys...)
		}
	}
	return out
}
