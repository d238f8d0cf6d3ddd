// Package staging is the Stage stage (named staging so nobody writes
// stage.Stage). Once per run it compiles every WASM tool and writes each
// tool's files to a run-level folder; per case it creates the session
// folder in murmur's layout (tools/<name>/murmur.yaml and the module,
// task.md, logs/, out/), linking the shared files rather than copying them.
package staging

import (
	"context"
	"os"
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// Name is the stage's name in the graph.
const Name = "stage"

// Options say where the run's files go.
type Options struct {
	// StagedDir is the run-level folder the shared tool files are written
	// to once; sessions link to them.
	StagedDir string
	// CacheDir is wazero's compilation cache across runs; "" for none.
	CacheDir string
}

// Stage is the Stage stage. It is safe for concurrent use. Close releases
// the WASM engine it creates.
type Stage struct {
	opts Options
	memo pipeline.Memo[*pipeline.Toolset]
}

// New returns a Stage stage for one run.
func New(opts Options) *Stage { return &Stage{opts: opts} }

// Name returns "stage".
func (s *Stage) Name() string { return Name }

// Run prepares the run's tools on first use, then the case's session folder.
func (s *Stage) Run(ctx context.Context, c *pipeline.Case) error {
	if c.Capsule == nil || c.Artifacts == nil && len(c.Capsule.Pins) > 0 {
		return errcode.New(errcode.Internal, "stage: resolve and verify did not run")
	}
	arts, limits := c.Artifacts, c.Capsule.Manifest.Capabilities.Limits
	ts, err := s.memo.Get(ctx, func(ctx context.Context) (*pipeline.Toolset, error) {
		return prepare(ctx, s.opts, arts, sandbox.Config{CacheDir: s.opts.CacheDir, MemoryLimitBytes: limits.MemoryBytes})
	})
	if err != nil {
		return err
	}
	c.Toolset = ts
	return stageSession(c)
}

// Close closes the WASM engine, if one was made.
func (s *Stage) Close(ctx context.Context) error {
	ts, err := s.memo.Get(ctx, func(context.Context) (*pipeline.Toolset, error) { return nil, nil })
	if err != nil || ts == nil || ts.Engine == nil {
		return nil
	}
	return ts.Engine.Close(ctx)
}

// stageSession creates the case's session folder.
func stageSession(c *pipeline.Case) error {
	for _, d := range []string{"logs", "out", "tools"} {
		if err := os.MkdirAll(filepath.Join(c.SessionDir, d), 0o755); err != nil {
			return errcode.Wrap(errcode.IO, err, "create session folder")
		}
	}
	for name, t := range c.Toolset.Tools {
		dir := filepath.Join(c.SessionDir, "tools", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return errcode.Wrap(errcode.IO, err, "create %s", dir)
		}
		for file, src := range t.Files {
			if err := linkOrCopy(src, filepath.Join(dir, file)); err != nil {
				return errcode.Wrap(errcode.IO, err, "stage tools/%s/%s", name, file)
			}
		}
	}
	task, err := c.Input.ReadTask()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.SessionDir, "task.md"), []byte(task), 0o644); err != nil {
		return errcode.Wrap(errcode.IO, err, "write task.md")
	}
	return nil
}

// linkOrCopy hard-links src to dst, copying when the two are on different
// file systems (or links are refused).
func linkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o444)
}
