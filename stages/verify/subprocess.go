package verify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// finish completes the run's toolset once the artifacts are staged: the
// host probe, per-artifact scopes, a tool for every shell.allow binary
// without an artifact, the Spawner when anything runs as a subprocess, and
// the W-SEC warnings.
//
// runDir is the run folder: it must be reachable by the subprocess user,
// and the launcher's copy goes there, so a killed run leaves nothing in
// /tmp.
func finish(ts *Toolset, m *capsule.Manifest, host sandbox.Host, scopes map[string]string, runDir string) error {
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
	ts.Warnings = warnings(m, host, native)
	if !native && !spawns(m) {
		return nil
	}
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
	sp, err := sandbox.NewSpawner(exe, host, sandbox.SpawnerOptions{RunDir: runDir, ShellAllow: caps.Shell.Allow,
		InterpreterRuntime: caps.Shell.InterpreterRuntime, UnixSockets: caps.Network != nil && caps.Network.UnixSockets})
	if err != nil {
		return err
	}
	ts.Spawner = sp
	return nil
}
