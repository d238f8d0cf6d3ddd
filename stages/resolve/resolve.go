// Package resolve is the Resolve stage: it reads the capsule project as
// `mur eval run` does (.env, murmur.yaml, murmur.lock), finds every registry
// artifact in the project store, then the global store, and checks that
// every local-source skill can be read. The work is the same for every case,
// so it is done once per run and shared.
package resolve

import (
	"context"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/variant"
)

// Name is the stage's name in the graph.
const Name = "resolve"

// Result is the key of the stage's result, the run's *Capsule.
var Result = pipeline.NewKey[*Capsule](Name) //nolint:gochecknoglobals // a constant key (Go has no const of a generic type)

// Decl declares the stage to the graph (package stages wires the table).
var Decl = pipeline.Decl{Name: Name, Produces: Result, Shared: true} //nolint:gochecknoglobals // a declaration, as go/analysis's Analyzer values

// Capsule is Resolve's run-wide result: the parsed manifest and every
// registry artifact pinned and found in a store.
type Capsule struct {
	Manifest *capsule.Manifest
	Pins     []capsule.Pinned
	// Script is the script capsule's component (capsule.wasm, else the one
	// root *.wasm of the project) when the manifest has no inference
	// block; "" for an agent capsule.
	Script string
	// run is the run's Capsule a variant's was made from; nil for the
	// run's own (Run).
	run *Capsule
}

// Run is the run's Capsule: c itself, or for a variant's (whose manifest
// differs only in its inference block) the one it was made from, so work
// keyed on the capsule and not on its model is done once per run.
func (c *Capsule) Run() *Capsule {
	if c.run != nil {
		return c.run
	}
	return c
}

// Options locate the capsule project and the environment it is read with.
type Options struct {
	Dir string // the capsule project folder
	// LookupEnv is the process environment. It resolves a ${VAR}
	// inference.api_key, with <Dir>/.env filling in names it does not set
	// (never overriding it), and MURMUR_MAX_ARTIFACT_DECOMPRESSED_BYTES.
	LookupEnv func(string) (string, bool)
	Home      string // for the global store; "" for none
	Platform  string // murmur's platform string
	// Variants are the run's variants: a case of one gets the manifest
	// with the variant's inference block (variant.Variant.Apply).
	Variants variant.Set
}

// Stage is the Resolve stage. It is safe for concurrent use.
type Stage struct {
	opts     Options
	memo     pipeline.Memo[*Capsule]
	variants *variants
}

// New returns a Resolve stage for one run.
func New(opts Options) *Stage { return &Stage{opts: opts, variants: &variants{set: opts.Variants}} }

// Name returns "resolve".
func (s *Stage) Name() string { return Name }

// Run stores the run's Capsule, resolving the project on first use; a
// case of a variant gets the variant's (made once per variant).
func (s *Stage) Run(ctx context.Context, c *pipeline.Case) error {
	cap, err := s.memo.Get(ctx, s.resolve)
	if err != nil {
		return err
	}
	if cap, err = s.variants.of(cap, c.Variant); err != nil {
		return err
	}
	pipeline.Store(c, Result, cap)
	return nil
}

// resolve follows `mur eval run`: .env (E-IO-003), the manifest (E-MAN-*),
// the lock (E-RUN-003), the stores (E-REG-001, E-RUN-003), then the local
// sources (E-IO-001), all before any case stages anything.
func (s *Stage) resolve(context.Context) (*Capsule, error) {
	m, err := capsule.LoadProjectManifest(s.opts.Dir, s.opts.LookupEnv)
	if err != nil {
		return nil, err
	}
	lock, err := capsule.ReadLock(capsule.LockPath(m.Dir))
	if err != nil {
		return nil, err
	}
	reg := capsule.NewRegistry(m.Dir, s.opts.Home)
	reg.MaxEntryBytes = capsule.MaxEntryBytes(s.opts.LookupEnv)
	pins, err := capsule.ResolveAll(m, lock, reg, s.opts.Platform)
	if err != nil {
		return nil, err
	}
	if _, err := capsule.ReadLocalSkills(m); err != nil {
		return nil, err
	}
	var script string
	if m.Inference == nil {
		if script, err = scriptWasm(m.Dir); err != nil {
			return nil, err
		}
	}
	return &Capsule{Manifest: m, Pins: pins, Script: script}, nil
}
