// Package resolve is the Resolve stage: it reads the capsule project
// (murmur.yaml, murmur.lock) and finds every registry artifact in the
// project store, then the global store. The work is the same for every
// case, so it is done once per run and shared.
package resolve

import (
	"context"
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/pipeline"
)

// Name is the stage's name in the graph.
const Name = "resolve"

// Options locate the capsule project and the environment it is read with.
type Options struct {
	Dir       string                      // the capsule project folder
	LookupEnv func(string) (string, bool) // for ${VAR} in inference.api_key
	Home      string                      // for the global store; "" for none
	Platform  string                      // murmur's platform string
}

// Stage is the Resolve stage. It is safe for concurrent use.
type Stage struct {
	opts Options
	memo pipeline.Memo[*pipeline.Capsule]
}

// New returns a Resolve stage for one run.
func New(opts Options) *Stage { return &Stage{opts: opts} }

// Name returns "resolve".
func (s *Stage) Name() string { return Name }

// Run sets c.Capsule, resolving the project on first use.
func (s *Stage) Run(ctx context.Context, c *pipeline.Case) error {
	cap, err := s.memo.Get(ctx, s.resolve)
	c.Capsule = cap
	return err
}

func (s *Stage) resolve(context.Context) (*pipeline.Capsule, error) {
	m, err := capsule.LoadManifest(filepath.Join(s.opts.Dir, capsule.ManifestFile), s.opts.LookupEnv)
	if err != nil {
		return nil, err
	}
	lock, err := capsule.ReadLock(capsule.LockPath(m.Dir))
	if err != nil {
		return nil, err
	}
	pins, err := capsule.ResolveAll(m, lock, capsule.NewRegistry(m.Dir, s.opts.Home), s.opts.Platform)
	if err != nil {
		return nil, err
	}
	return &pipeline.Capsule{Manifest: m, Pins: pins}, nil
}
