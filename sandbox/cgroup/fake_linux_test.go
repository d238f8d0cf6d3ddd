package cgroup

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// fakeKernel plays the kernel on a tree of plain files: making a group's
// folder makes its interface files (on v2, those of the controllers its
// parent gives it), moving a pid takes it out of every other group of the
// hierarchy, and v2's no-internal-processes rule refuses (EBUSY) a
// controller for the children of a group that holds processes.
type fakeKernel struct {
	t       *testing.T
	root    string   // the tree (v2: the mount; v1: the folder of the mounts)
	v2      bool     // cgroup v2 files and rules
	noKill  bool     // no cgroup.kill (before Linux 5.14)
	noSwap  bool     // no memory.swap.max / memory.memsw.limit_in_bytes
	writes  []string // "relative path: data", in order, failed ones too
	killed  []int
	selfPid int
	devices map[string]uint64 // path -> st_dev; others are not there
	disks   map[uint64]string // st_dev -> disk; others are no block device
}

func newFakeKernel(t *testing.T, v2 bool) *fakeKernel {
	return &fakeKernel{t: t, root: t.TempDir(), v2: v2, selfPid: 4242,
		devices: map[string]uint64{"/data": 0x801, "/tmpfs": 0x2a},
		disks:   map[uint64]string{0x801: "8:0"}}
}

func (k *fakeKernel) sys() sysOps {
	return sysOps{
		mkdir: k.mkdir, rmdir: k.rmdir, write: k.write, kill: k.kill, pid: k.selfPid,
		devOf:  func(p string) (uint64, bool) { d, ok := k.devices[p]; return d, ok },
		diskOf: func(d uint64) (string, bool) { s, ok := k.disks[d]; return s, ok },
	}
}

func (k *fakeKernel) rel(path string) string {
	r, err := filepath.Rel(k.root, path)
	if err != nil {
		k.t.Fatal(err)
	}
	return r
}

// file writes a file of the fake tree directly (the test's own edits).
func (k *fakeKernel) file(rel, data string) {
	k.t.Helper()
	p := filepath.Join(k.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		k.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		k.t.Fatal(err)
	}
}

func (k *fakeKernel) read(rel string) string {
	k.t.Helper()
	b, err := os.ReadFile(filepath.Join(k.root, rel))
	if err != nil {
		k.t.Fatal(err)
	}
	return string(b)
}

func (k *fakeKernel) mkdir(path string) error {
	if err := os.Mkdir(path, 0o755); err != nil {
		return err
	}
	files := map[string]string{"cgroup.procs": ""}
	if k.v2 {
		parent, _ := os.ReadFile(filepath.Join(filepath.Dir(path), "cgroup.subtree_control"))
		ctls := strings.Fields(string(parent))
		files["cgroup.controllers"] = strings.Join(ctls, " ")
		files["cgroup.subtree_control"] = ""
		if !k.noKill {
			files["cgroup.kill"] = ""
		}
		for _, c := range ctls {
			switch c {
			case "memory":
				files["memory.max"] = "max\n"
				files["memory.events"] = "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n"
				if !k.noSwap {
					files["memory.swap.max"] = "max\n"
				}
			case "pids":
				files["pids.max"], files["pids.events"] = "max\n", "max 0\n"
			case "cpu":
				files["cpu.max"] = "max 100000\n"
			case "io":
				files["io.max"] = ""
			}
		}
	} else {
		mnt, _, _ := strings.Cut(k.rel(path), "/")
		for _, c := range strings.Split(mnt, ",") {
			switch c {
			case "memory":
				files["memory.limit_in_bytes"] = "9223372036854771712\n"
				files["memory.oom_control"] = "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n"
				if !k.noSwap {
					files["memory.memsw.limit_in_bytes"] = "9223372036854771712\n"
				}
			case "pids":
				files["pids.max"], files["pids.events"] = "max\n", "max 0\n"
			case "cpu":
				files["cpu.cfs_period_us"], files["cpu.cfs_quota_us"] = "100000\n", "-1\n"
			case "blkio":
				files["blkio.throttle.read_bps_device"], files["blkio.throttle.write_bps_device"] = "", ""
			}
		}
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(path, name), []byte(data), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func (k *fakeKernel) rmdir(path string) error {
	entries, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			return unix.EBUSY
		}
	}
	if b, _ := os.ReadFile(filepath.Join(path, "cgroup.procs")); len(pidList(b)) > 0 {
		return unix.EBUSY
	}
	return os.RemoveAll(path)
}

func (k *fakeKernel) write(path, data string) error {
	k.writes = append(k.writes, k.rel(path)+": "+data)
	dir, name := filepath.Dir(path), filepath.Base(path)
	switch name {
	case "cgroup.subtree_control":
		if k.v2 && dir != k.root && len(k.procs(dir)) > 0 {
			return &os.PathError{Op: "write", Path: path, Err: unix.EBUSY}
		}
		var on []string
		for _, w := range strings.Fields(data) {
			on = append(on, strings.TrimPrefix(w, "+"))
		}
		slices.Sort(on)
		return writeFile(path, strings.Join(on, " "))
	case "cgroup.procs":
		if _, err := os.Stat(path); err != nil {
			return err
		}
		pid := pidList([]byte(data))[0]
		scope := k.root // a v1 process is in one group of each hierarchy
		if !k.v2 {
			mnt, _, _ := strings.Cut(k.rel(path), "/")
			scope = filepath.Join(k.root, mnt)
		}
		k.drop(scope, pid)
		return os.WriteFile(path, []byte(k.read(k.rel(path))+data+"\n"), 0o644)
	case "cgroup.kill":
		if _, err := os.Stat(path); err != nil {
			return err
		}
		for _, p := range k.procs(dir) {
			k.drop(k.root, p)
		}
		return nil
	}
	return writeFile(path, data)
}

func (k *fakeKernel) kill(pid int) error {
	k.killed = append(k.killed, pid)
	k.drop(k.root, pid)
	return nil
}

func (k *fakeKernel) procs(dir string) []int {
	b, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	return pidList(b)
}

// drop takes pid out of every group below scope.
func (k *fakeKernel) drop(scope string, pid int) {
	_ = filepath.WalkDir(scope, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.Name() != "cgroup.procs" {
			return err
		}
		var keep []string
		for _, q := range k.procs(filepath.Dir(p)) {
			if q != pid {
				keep = append(keep, uitoa(uint64(q))+"\n")
			}
		}
		return os.WriteFile(p, []byte(strings.Join(keep, "")), 0o644)
	})
}

// exists reports whether rel is in the tree.
func (k *fakeKernel) exists(rel string) bool {
	_, err := os.Stat(filepath.Join(k.root, rel))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		k.t.Fatal(err)
	}
	return err == nil
}
