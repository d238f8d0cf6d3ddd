package verify

import (
	"context"

	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// Runtime makes the run-wide objects a Toolset holds: the WASM engine its
// modules are compiled on and the Spawner its subprocesses run through.
// The run owns what Runtime makes and closes it after its last case
// (package stages' Runtime); Verify only asks, from its memoised
// preparation, so once per run (again only after a try whose own context
// ended). It must be safe for concurrent use.
type Runtime interface {
	NewEngine(ctx context.Context, cfg sandbox.Config) (*sandbox.Engine, error)
	NewSpawner(launcher string, host sandbox.Host, opts sandbox.SpawnerOptions) (*sandbox.Spawner, error)
}
