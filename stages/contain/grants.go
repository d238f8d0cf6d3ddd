package contain

import (
	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// grants is murmur's effective_grants object (murmur-formats.md §5.2) for
// session_start (enforcement_tier in murmur's names), plus murmur-eval's
// enforcement_mechanism (what it enforces, sandbox.TierLandlock) and
// subprocess_egress (sandbox.Spawner.EgressMode): "none" when
// subprocesses get their own network namespace with no way out, "proxy"
// when network.allow is not empty and the egress proxy serves their
// namespace, "unconstrained" when they get the host's network (a host
// where the proxy cannot be set up: W-SEC-003), and "no-subprocesses"
// when the capsule runs none.
func grants(cls sandbox.Containment, caps capsule.Capabilities, egress string) map[string]any {
	g := map[string]any{
		"declared_containment":       string(cls.Declared),
		"achieved_containment":       string(cls.Achieved),
		"floor_met":                  cls.FloorMet,
		"enforcement_tier":           sandbox.MurmurTierName(cls.Tier),
		"enforcement_mechanism":      cls.Tier,
		"filesystem_scope":           nil,
		"workdir_exec":               caps.Filesystem.WorkdirExec,
		"network_allow":              orEmpty(nil),
		"unix_sockets":               false,
		"shell_allow":                orEmpty(caps.Shell.Allow),
		"spawn_allow":                orEmpty(caps.Spawn.Allow),
		"env_allow":                  orEmpty(caps.Env.Allow),
		"interpreter_runtime_grants": interpreterGrants(caps.Shell.InterpreterRuntime),
		"staged_runtime_grants":      stagedGrants(caps.Shell.StagedRuntime),
		"subprocess_egress":          egress,
	}
	if cls.Shortfall != "" {
		g["shortfall_reason"] = cls.Shortfall
	}
	if caps.Filesystem.Scope != "" {
		g["filesystem_scope"] = caps.Filesystem.Scope
	}
	if n := caps.Network; n != nil {
		g["network_allow"] = orEmpty(n.Allow)
		g["unix_sockets"] = n.UnixSockets
	}
	return g
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func interpreterGrants(gs []capsule.InterpreterGrant) []string {
	out := []string{}
	for _, g := range gs {
		for _, d := range g.Dirs {
			s := g.Binary + ": " + d.Path
			if d.ListDir {
				s += " (list_dir)"
			}
			out = append(out, s)
		}
	}
	return out
}

func stagedGrants(gs []capsule.StagedGrant) []string {
	out := []string{}
	for _, g := range gs {
		out = append(out, g.Binary+": "+g.SourcePath+" (pin: "+g.Pin+")")
	}
	return out
}
