package stages

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// Runtime owns the run-wide objects Verify's toolset holds: the WASM
// engines and Spawners it makes for the stages (verify.Runtime), each
// closed by Close after the run's last case. Verify asks for them once per
// run; a second engine or Spawner is made only when a try of Verify's
// preparation was given up (its context ended), and it is closed too. It
// is safe for concurrent use.
type Runtime struct {
	mu       sync.Mutex
	engines  []*sandbox.Engine
	spawners []*sandbox.Spawner
	closed   bool
}

// NewRuntime returns an empty Runtime.
func NewRuntime() *Runtime { return &Runtime{} }

// NewEngine makes a WASM engine with cfg, which Close closes.
func (r *Runtime) NewEngine(ctx context.Context, cfg sandbox.Config) (*sandbox.Engine, error) {
	e, err := sandbox.NewEngine(ctx, cfg)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		_ = e.Close(ctx)
		return nil, errClosed()
	}
	r.engines = append(r.engines, e)
	return e, nil
}

// NewSpawner makes a Spawner (sandbox.NewSpawner), which Close closes
// (its launcher copy removed, its cgroup with it).
func (r *Runtime) NewSpawner(launcher string, host sandbox.Host, opts sandbox.SpawnerOptions) (*sandbox.Spawner, error) {
	sp, err := sandbox.NewSpawner(launcher, host, opts)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		_ = sp.Close()
		return nil, errClosed()
	}
	r.spawners = append(r.spawners, sp)
	return sp, nil
}

// Close closes what the Runtime made, the Spawners first (their calls
// ended with the cases), then the engines; later requests are refused.
func (r *Runtime) Close(ctx context.Context) error {
	r.mu.Lock()
	spawners, engines := r.spawners, r.engines
	r.spawners, r.engines, r.closed = nil, nil, true
	r.mu.Unlock()
	var errs []error
	for _, sp := range slices.Backward(spawners) {
		errs = append(errs, sp.Close())
	}
	for _, e := range slices.Backward(engines) {
		errs = append(errs, e.Close(ctx))
	}
	return errors.Join(errs...)
}

func errClosed() error {
	return errcode.New(errcode.Internal, "the run's runtime is closed: no engine or launcher is made after the run's end")
}
