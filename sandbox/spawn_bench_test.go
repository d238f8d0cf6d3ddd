package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/sandbox/egress"
)

// BenchmarkSpawnTrue runs /bin/true through the launcher once per
// iteration with a session's whole containment: what a shell tool call
// costs before the command does anything.
func BenchmarkSpawnTrue(b *testing.B) {
	requireSandbox(b)
	benchSpawn(b, testSpawner(b), true)
}

// BenchmarkSpawnTrueProxied is BenchmarkSpawnTrue for a capsule with a
// non-empty network.allow: the call's namespace set up for the egress
// proxy (two ports and the resolver) and the proxy started and stopped.
func BenchmarkSpawnTrueProxied(b *testing.B) {
	requireSandbox(b)
	if !testHost().Egress {
		b.Skip("no egress proxy on this host")
	}
	p, err := egress.NewPolicy([]capsule.AllowRule{{Host: "localhost", Port: capsule.AnyPort}}, egress.Options{})
	if err != nil {
		b.Fatal(err)
	}
	benchSpawn(b, spawnerWithB(b, SpawnerOptions{ShellAllow: testShellAllow(), Egress: p}), false)
}

// BenchmarkSpawnTrueCgroup is BenchmarkSpawnTrue with a cgroup per call
// (created, joined, read and removed).
func BenchmarkSpawnTrueCgroup(b *testing.B) {
	requireSandbox(b)
	run := testCgroupRun(b)
	benchSpawn(b, spawnerWithB(b, SpawnerOptions{ShellAllow: testShellAllow(), Cgroups: run}), true)
}

// BenchmarkSpawnTrueProxiedCgroup is both: a capsule with the model's
// endpoint in network.allow on a host with cgroups, the default path of a
// capsule with shell tools here.
func BenchmarkSpawnTrueProxiedCgroup(b *testing.B) {
	requireSandbox(b)
	if !testHost().Egress {
		b.Skip("no egress proxy on this host")
	}
	p, err := egress.NewPolicy([]capsule.AllowRule{{Host: "localhost", Port: capsule.AnyPort}}, egress.Options{})
	if err != nil {
		b.Fatal(err)
	}
	benchSpawn(b, spawnerWithB(b, SpawnerOptions{ShellAllow: testShellAllow(), Egress: p, Cgroups: testCgroupRun(b)}), false)
}

// spawnerWithB is spawnerWith for a benchmark.
func spawnerWithB(b *testing.B, opts SpawnerOptions) *Spawner {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	s, err := NewSpawner(exe, testHost(), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func benchSpawn(b *testing.B, s *Spawner, isolate bool) {
	dir := b.TempDir()
	openUp(dir)
	p := Proc{Path: "/bin/true", Argv: []string{"true"}, Dir: dir, SessionDir: dir, Resources: defaultResources(),
		Isolate: isolate, Env: []string{"PATH=/usr/bin:/bin", "HOME=" + filepath.Join(dir, ".capsule-home")}, Deadline: 20 * time.Second, MaxOutput: 16 << 10}
	for b.Loop() {
		r, err := s.Run(context.Background(), p)
		if err != nil || r.ExitCode != 0 {
			b.Fatalf("%v %+v", err, r)
		}
	}
}

// openUp lets the subprocess user walk to dir (t.TempDir is 0700 for root).
func openUp(dir string) {
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		_ = os.Chmod(d, 0o755)
	}
}
