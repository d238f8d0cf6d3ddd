package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/murmur-nexus/murmur-eval/capsule"
)

// BenchmarkWorkdirTick is one tick of a running call's workdir guard: a
// session of 200 files while a tool (sh) and two children run, the walk
// alone (CheckSession, what a tick cost before deleted files counted), the
// process scan alone (descendants and heldFiles), and both (checkCall).
func BenchmarkWorkdirTick(b *testing.B) {
	dir := b.TempDir()
	for i := range 200 {
		if err := os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)), []byte("x"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cmd := exec.Command("sh", "-c", "sleep 60 & sleep 60 & wait")
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for { // both children started
		if pids, _ := descendants(cmd.Process.Pid); len(pids) == 3 {
			break
		}
	}
	p := Proc{SessionDir: dir, Resources: capsule.Resources{WorkdirMaxBytes: 1 << 30, WorkdirMaxFiles: 50_000}}
	pids := callPIDs(cmd.Process.Pid)
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			if err := CheckSession(dir, p.Resources); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("processes", func(b *testing.B) {
		devs := sessionDevs(dir)
		for b.Loop() {
			list, err := pids()
			if err != nil || len(list) != 3 {
				b.Fatal(list, err)
			}
			if _, err := heldFiles(list, devs, []string{dir}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("both", func(b *testing.B) {
		for b.Loop() {
			if err := checkCall(dir, p, pids); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkWorkdirWalkEntries is the walk of a session holding n empty
// files in folders of 1,000: what a tick costs a case near the file bound.
func BenchmarkWorkdirWalkEntries(b *testing.B) {
	for _, n := range []int{10_000, 50_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			dir := b.TempDir()
			for i := range n {
				sub := filepath.Join(dir, strconv.Itoa(i/1000))
				if i%1000 == 0 {
					if err := os.Mkdir(sub, 0o755); err != nil {
						b.Fatal(err)
					}
				}
				if err := os.WriteFile(filepath.Join(sub, strconv.Itoa(i)), nil, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			r := capsule.Resources{WorkdirMaxBytes: 1 << 40}
			for b.Loop() {
				if err := CheckSession(dir, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
