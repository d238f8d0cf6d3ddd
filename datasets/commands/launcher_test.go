package commands

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// TestResourcesRaisesTheFloors: a command gets at least the floors for
// processes (the cgroup's count too) and open files; higher limits and the
// others stay.
func TestResourcesRaisesTheFloors(t *testing.T) {
	for _, tc := range []struct {
		in, want capsule.Resources
	}{
		{capsule.Resources{MaxProcesses: 8, CgroupPidsMax: 8, MaxOpenFiles: 64, MemoryBytes: 1 << 20},
			capsule.Resources{MaxProcesses: MinProcesses, CgroupPidsMax: MinProcesses, MaxOpenFiles: MinOpenFiles, MemoryBytes: 1 << 20}},
		{capsule.Resources{MaxProcesses: 5000, CgroupPidsMax: 6000, MaxOpenFiles: 9000},
			capsule.Resources{MaxProcesses: 5000, CgroupPidsMax: 6000, MaxOpenFiles: 9000}},
	} {
		if got := Resources(tc.in); got != tc.want {
			t.Errorf("Resources(%+v) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// TestRunRefusedWithoutNamespaces: a host that cannot make the namespaces
// is refused with E-CAP-005 before anything starts; the command never
// runs with murmur-eval's own uid.
func TestRunRefusedWithoutNamespaces(t *testing.T) {
	l := NewLauncher("")
	defer l.Close()
	dir := t.TempDir()
	_, err := l.Run(context.Background(), Host{Probe: sandbox.Host{UserNSReason: "operation not permitted"}}, capsule.Resources{},
		Proc{Path: "/bin/sh", Argv: []string{"sh", "-c", "touch ran"}, SessionDir: dir})
	if !errcode.Is(err, errcode.CapEgressNamespace) {
		t.Fatalf("Run = %v, want %s", err, errcode.CapEgressNamespace)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("the command ran")
	}
}

// TestSpawnerPrefersTheCapsules: the capsule's Spawner serves the
// commands when there is one; a nil Launcher without one is an internal
// error, not a panic.
func TestSpawnerPrefersTheCapsules(t *testing.T) {
	own := &sandbox.Spawner{}
	var l *Launcher
	if sp, err := l.Spawner(Host{Spawner: own}); sp != own || err != nil {
		t.Errorf("Spawner = %p, %v; want the capsule's %p", sp, err, own)
	}
	if _, err := l.Spawner(Host{}); !errcode.Is(err, errcode.Internal) {
		t.Errorf("nil Launcher's Spawner = %v, want %s", err, errcode.Internal)
	}
	if err := l.Close(); err != nil {
		t.Errorf("nil Launcher's Close = %v", err)
	}
}
