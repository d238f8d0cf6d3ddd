package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkSpawnTrue runs /bin/true through the launcher once per
// iteration with a session's whole containment: what a shell tool call
// costs before the command does anything.
func BenchmarkSpawnTrue(b *testing.B) {
	requireSandbox(b)
	s := testSpawner(b)
	dir := b.TempDir()
	openUp(dir)
	p := Proc{Path: "/bin/true", Argv: []string{"true"}, Dir: dir, SessionDir: dir, Resources: defaultResources(),
		Isolate: true, Env: []string{"PATH=/usr/bin:/bin", "HOME=" + filepath.Join(dir, ".capsule-home")}, Deadline: 20 * time.Second, MaxOutput: 16 << 10}
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
