//go:build !linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"runtime"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Off Linux there is no containment for subprocesses: ProbeHost finds
// neither Landlock nor namespaces, so Verify answers as murmur does on such
// a host (a warning for an advisory floor, E-CAP-003 above it, E-CAP-005
// for shell, spawn or native tools), and a Spawner refuses to start
// anything. The report tools and WASM tools need none of this.

// ProbeHost reports a host without Landlock or namespaces.
func ProbeHost(context.Context) Host {
	why := "not offered on " + runtime.GOOS + " (Linux only)"
	return Host{LandlockReason: "Landlock is " + why, UserNSReason: "user and network namespaces are " + why}
}

// Spawner refuses every subprocess off Linux.
type Spawner struct{ host Host }

// NewSpawner returns a Spawner whose Run always fails with E-RUN-001.
func NewSpawner(_ string, host Host, _ SpawnerOptions) (*Spawner, error) {
	return &Spawner{host: host}, nil
}

// EgressMode is "none" for an isolated call and "unconstrained" otherwise
// (off Linux nothing runs anyway).
func (s *Spawner) EgressMode(isolate bool) string {
	if isolate {
		return EgressNone
	}
	return EgressUnconstrained
}

// Close does nothing: no launcher was placed.
func (s *Spawner) Close() error { return nil }

// Host is the host probe the Spawner was made with.
func (s *Spawner) Host() Host { return s.host }

// Run refuses p: a subprocess would run uncontained.
func (s *Spawner) Run(ctx context.Context, p Proc) (*ProcResult, error) {
	if ctx.Err() != nil {
		return nil, interrupted(ctx, p.Argv[0])
	}
	return nil, errcode.New(errcode.RunCapsule, "'%s' not started: subprocesses run only on Linux, inside namespaces, Landlock and seccomp (this is %s)", p.Argv[0], runtime.GOOS)
}

// LauncherMain reports handled=false unless args start with LauncherArg,
// which no Spawner uses off Linux.
func LauncherMain(args []string) (handled bool, exitCode int) {
	if len(args) < 2 || args[1] != LauncherArg {
		return false, 0
	}
	fmt.Fprintln(os.Stderr, "murmur-eval-launcher: subprocesses run only on Linux")
	return true, 125
}
