package cgroup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDetect picks a hierarchy from mountinfo and /proc/self/cgroup as
// parsed, over a tree of plain files.
func TestDetect(t *testing.T) {
	dir := t.TempDir()
	put := func(rel, data string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("unified/cgroup.controllers", "hugetlb\n") // a hybrid host's v2 mount
	put("v2/user.slice/cgroup.controllers", "cpu io memory pids\n")
	for _, m := range []string{"memory/process_api/7e", "pids", "cpu,cpuacct", "blkio"} {
		put(m+"/cgroup.procs", "")
	}
	v1 := func(ro bool) []mount {
		return []mount{
			{root: "/", point: filepath.Join(dir, "memory"), supers: []string{"rw", "memory"}, readOnly: ro},
			{root: "/", point: filepath.Join(dir, "pids"), supers: []string{"rw", "pids"}},
			{root: "/", point: filepath.Join(dir, "cpu,cpuacct"), supers: []string{"rw", "cpu", "cpuacct"}},
			{root: "/", point: filepath.Join(dir, "blkio"), supers: []string{"rw", "blkio"}},
		}
	}
	v1Self := map[string]string{"memory": "/process_api/7e", "pids": "/", "cpu": "/", "cpuacct": "/", "blkio": "/"}
	hybrid := mount{root: "/", point: filepath.Join(dir, "unified"), v2: true}
	for _, tc := range []struct {
		name        string
		mounts      []mount
		pc          procCgroup
		version     int
		unavailable []string
	}{
		{name: "v2", mounts: []mount{{root: "/", point: filepath.Join(dir, "v2"), v2: true}},
			pc: procCgroup{unified: "/user.slice", hasUnified: true}, version: 2},
		{name: "hybrid: v1 controllers", mounts: append(v1(false), hybrid),
			pc: procCgroup{unified: "/", hasUnified: true, v1: v1Self}, version: 1},
		{name: "v1 only", mounts: v1(false), pc: procCgroup{v1: v1Self}, version: 1},
		{name: "hybrid, v1 read-only", mounts: append(v1(true), hybrid),
			pc:          procCgroup{unified: "/", hasUnified: true, v1: v1Self},
			unavailable: []string{"cgroup v2: controllers memory, pids, cpu are not delegated", "cgroup v1: ", "memory is mounted read-only"}},
		{name: "v2 read-only", mounts: []mount{{root: "/", point: filepath.Join(dir, "v2"), v2: true, readOnly: true}},
			pc: procCgroup{unified: "/user.slice", hasUnified: true}, unavailable: []string{"v2 is mounted read-only"}},
		{name: "container's mount of another folder", mounts: []mount{{root: "/docker/other", point: filepath.Join(dir, "v2"), v2: true}},
			pc: procCgroup{unified: "/user.slice", hasUnified: true}, unavailable: []string{"no cgroup2 mount shows this process's cgroup /user.slice"}},
		{name: "no v1 pids mount", mounts: v1(false)[:1], pc: procCgroup{v1: v1Self},
			unavailable: []string{"the pids controller is not mounted", "the cpu controller is not mounted"}},
		{name: "nothing mounted", pc: procCgroup{unified: "/", hasUnified: true}, unavailable: []string{"no cgroup2 file system is mounted"}},
		{name: "in no cgroup", unavailable: []string{"in no cgroup"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := detect(tc.mounts, tc.pc)
			if tc.unavailable != nil {
				if !errors.Is(err, ErrUnavailable) {
					t.Fatalf("detect: %v, want ErrUnavailable", err)
				}
				for _, s := range tc.unavailable {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("detect: %q; want it to say %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.Version() != tc.version {
				t.Errorf("version %d, want %d", h.Version(), tc.version)
			}
			if h.version == 1 && h.own["memory"] != filepath.Join(dir, "memory/process_api/7e") {
				t.Errorf("memory folder %s", h.own["memory"])
			}
		})
	}
}

// TestDetectThisHost: Detect reads this host's files without failing in
// an unexpected way; on a host with a writable v1 pids mount as root it
// finds a hierarchy.
func TestDetectThisHost(t *testing.T) {
	h, err := Detect()
	if err != nil {
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Detect: %v, not ErrUnavailable", err)
		}
		if os.Geteuid() == 0 && v1PidsWritable() {
			t.Fatalf("Detect: %v; want a hierarchy (root, writable v1 pids mount)", err)
		}
		t.Logf("no cgroup here: %v", err)
		return
	}
	t.Logf("cgroup v%d: %v", h.Version(), h.own)
}
