package verify

import (
	"context"
	"slices"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// preflight is murmur's pre-staging order (murmur-formats.md §5.2), run
// once per run before any artifact is read, compiled or written: every
// network.allow entry (E-CAP-001) and filesystem scope (E-CAP-002), the
// host probe, the containment floor
// (E-CAP-003), then a network namespace for a capsule that can spawn
// (E-CAP-005). It returns the probe and the scopes of the artifacts that
// declare one.
func preflight(ctx context.Context, m *capsule.Manifest) (sandbox.Host, map[string]string, error) {
	caps := m.Capabilities
	scopes := map[string]string{}
	if err := m.CheckNetworkAllow(); err != nil {
		return sandbox.Host{}, nil, err
	}
	if err := sandbox.ValidateScope(caps.Filesystem.Scope); caps.Filesystem.Scope != "" && err != nil {
		return sandbox.Host{}, nil, err
	}
	for _, a := range m.Artifacts {
		if a.Capabilities == nil || a.Capabilities.Filesystem.Scope == "" {
			continue
		}
		if err := sandbox.ValidateScope(a.Capabilities.Filesystem.Scope); err != nil {
			return sandbox.Host{}, nil, err
		}
		scopes[a.Name] = a.Capabilities.Filesystem.Scope
	}
	host := sandbox.ProbeHost(ctx)
	if err := sandbox.Classify(host, caps).Err(); err != nil {
		return host, nil, err
	}
	if spawns(m) && !host.UserNS {
		return host, nil, egressError(host)
	}
	return host, scopes, nil
}

// spawns reports whether the manifest lets the capsule start subprocesses
// (native tools are only known once archives are read; see prepare).
func spawns(m *capsule.Manifest) bool {
	return len(m.Capabilities.Shell.Allow) > 0 || len(m.Capabilities.Spawn.Allow) > 0
}

func egressError(h sandbox.Host) error {
	return errcode.New(errcode.CapEgressNamespace, "this host cannot give the subprocess tree its own network namespace: %s", h.UserNSReason).
		WithHint("allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1) or remove shell, spawn and native tools")
}

// warnings are murmur's W-SEC warnings for the capsule on this host, each
// "warning[W-SEC-NNN]: text".
//
// cgErr is why the run has no cgroup (nil when it has one, or runs no
// subprocess).
func warnings(m *capsule.Manifest, h sandbox.Host, native bool, cgErr error) []string {
	caps := m.Capabilities
	var out []string
	add := func(code, text string) { out = append(out, "warning["+code+"]: "+text) }
	subprocs := spawns(m) || native
	if len(caps.Shell.Allow) > 0 {
		if h.Landlock {
			netns := "; their own user, PID, IPC, UTS and network namespaces"
			if caps.Network != nil && len(caps.Network.Allow) > 0 {
				netns = "; their own user, PID, IPC, UTS and network namespaces, reaching the network.allow hosts only through murmur-eval's egress proxy"
				if !h.Egress {
					netns = "; their own user, PID, IPC and UTS namespaces (the host's network: network.allow is not empty and the egress proxy cannot be set up here)"
				}
			}
			add("W-SEC-005", "shell tools run under Landlock and seccomp: the session dir read-write, the system's binary and library folders read-only, only the shell.allow binaries and their ELF interpreters executable (their libraries readable), nothing else of the host; a Docker-like system call allowlist; hard rlimits"+netns)
		} else {
			add("W-SEC-002", "shell tools run without Landlock on this host ("+h.LandlockReason+"): filesystem and exec access are not enforced")
		}
	}
	if subprocs && caps.Network != nil && len(caps.Network.Allow) > 0 && !h.Egress {
		add("W-SEC-003", "network.allow is not empty and this host cannot set up the egress proxy ("+h.EgressReason+"): subprocess egress is not constrained; shell and native tools reach any address")
	}
	if subprocs && cgErr != nil {
		add("W-SEC-010", "no cgroup for subprocesses ("+cgErr.Error()+"): they have per-process rlimits and a per-call process limit, but no aggregate memory, process, CPU or I/O bound (cgroup_* limits are not enforced)")
	}
	for _, g := range caps.Shell.InterpreterRuntime {
		for _, d := range g.Dirs {
			add("W-SEC-009", "shell.interpreter_runtime grant for '"+g.Binary+"': "+d.Path+" is readable and executable by every shell and native tool of the capsule (this couples the capsule to the host's layout)")
		}
	}
	out = append(out, m.NetworkWarnings()...)
	if caps.Filesystem.WorkdirExec {
		add("W-SEC-011", "filesystem.workdir_exec is true: tools may execute files they write; containment is capped at advisory")
	}
	return slices.Compact(out)
}
