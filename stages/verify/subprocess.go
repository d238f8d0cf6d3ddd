package verify

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/sandbox/egress"
)

// finish completes the run's toolset once the artifacts are staged: the
// host probe, per-artifact scopes, a tool for every shell.allow binary
// without an artifact, the Spawner when anything runs as a subprocess, and
// the W-SEC warnings.
//
// rt makes the Spawner, which the run owns. runDir is the run folder: it
// must be reachable by the subprocess user,
// and the launcher's copy goes there, so a killed run leaves nothing in
// /tmp.
func finish(ts *Toolset, rt Runtime, m *capsule.Manifest, host sandbox.Host, scopes map[string]string, runDir string) error {
	ts.Host = host
	native := false
	for name, t := range ts.Tools {
		t.Scope = scopes[name]
		native = native || t.Native
	}
	if ts.Driver != nil {
		ts.Driver.Scope = scopes[ts.Driver.Name]
	}
	for _, bin := range m.Capabilities.Shell.Allow {
		if _, ok := ts.Tools[bin]; ok {
			continue
		}
		ts.Tools[bin] = &Tool{Name: bin, Shell: true}
		ts.Inventory = append(ts.Inventory, inference.Tool{Name: bin, Parameters: json.RawMessage(sandbox.ShellToolSchema),
			Description: sandbox.ShellToolDescription(bin)})
	}
	sort.Slice(ts.Inventory, func(i, j int) bool { return ts.Inventory[i].Name < ts.Inventory[j].Name })
	if !native && !spawns(m) {
		ts.Warnings = warnings(m, host, native, nil)
		return nil
	}
	cgroups, cgErr := sandbox.RunCgroup()
	ts.Warnings = warnings(m, host, native, cgErr)
	// The Spawner owns the run's cgroup from here on; until then, every
	// way out removes it.
	spawnerMade := false
	defer func() {
		if !spawnerMade && cgroups != nil {
			_ = cgroups.Close()
		}
	}()
	if !host.UserNS {
		return egressError(host)
	}
	exe, err := os.Executable()
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "find the murmur-eval binary for the subprocess launcher")
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return errcode.Wrap(errcode.Internal, err, "find the murmur-eval binary for the subprocess launcher")
	}
	if err := sandbox.Reachable(runDir, "shell and native tools"); err != nil {
		return err
	}
	caps := m.Capabilities
	proxy, err := egressPolicy(m, host)
	if err != nil {
		return err
	}
	if proxy != nil && len(proxy.Dropped()) > 0 {
		d := proxy.Dropped()
		ts.Warnings = append(ts.Warnings, fmt.Sprintf("warning: network.allow implies more than %d ports; as in murmur, the egress proxy serves the lowest %d and subprocess connections to ports %v are refused",
			egress.MaxPorts, egress.MaxPorts, d))
	}
	sp, err := rt.NewSpawner(exe, host, sandbox.SpawnerOptions{RunDir: runDir, ShellAllow: caps.Shell.Allow,
		InterpreterRuntime: caps.Shell.InterpreterRuntime, UnixSockets: caps.Network != nil && caps.Network.UnixSockets,
		Egress: proxy, Cgroups: cgroups})
	if err != nil {
		return err
	}
	spawnerMade = true
	ts.Spawner = sp
	return nil
}

// egressPolicy is the run's subprocess egress proxy: nil when
// network.allow is empty (subprocesses get no network at all) or the host
// cannot set up a proxied namespace (W-SEC-003 says why). The ceiling's
// entries were checked before any artifact was read (preflight).
func egressPolicy(m *capsule.Manifest, host sandbox.Host) (*egress.Policy, error) {
	rules := m.Ceiling()
	if len(rules) == 0 || !host.Egress {
		return nil, nil
	}
	return egress.NewPolicy(rules, egress.Options{})
}
