package cgroup

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeV1 is a v1 tree with one mount a folder (named after its
// controllers, "cpu,cpuacct") and this process's memory cgroup below
// process_api/abc, as on the machine this package was written on.
func fakeV1(t *testing.T, mounts map[string]string) (*fakeKernel, *Hierarchy) {
	t.Helper()
	k := newFakeKernel(t, false)
	points, own := map[string]string{}, map[string]string{}
	for ctl, folder := range mounts {
		points[ctl] = filepath.Join(k.root, folder)
		own[ctl] = "/"
		if strings.Contains(folder, "memory") {
			own[ctl] = "/process_api/abc"
		}
		k.file(folder+own[ctl]+"/cgroup.procs", "")
	}
	h, err := OpenV1(points, own)
	if err != nil {
		t.Fatalf("OpenV1: %v", err)
	}
	h.sys = k.sys()
	return k, h
}

func v1Mounts() map[string]string {
	return map[string]string{"memory": "memory", "pids": "pids", "cpu": "cpu,cpuacct", "blkio": "blkio"}
}

func TestV1NewGroupWrites(t *testing.T) {
	const mem, pids, cpu, blkio = "memory/process_api/abc/run1/call-1/", "pids/run1/call-1/", "cpu,cpuacct/run1/call-1/", "blkio/run1/call-1/"
	for _, tc := range []struct {
		name   string
		mounts map[string]string
		noSwap bool
		l      Limits
		want   []string
	}{
		{name: "all four", l: Limits{MemoryBytes: 64 << 20, PidsMax: 32, CPUPercent: 50, IOBytesPerSec: 1 << 20, IODevice: "/data"},
			want: []string{mem + "memory.limit_in_bytes: 67108864", mem + "memory.memsw.limit_in_bytes: 67108864",
				pids + "pids.max: 32", cpu + "cpu.cfs_quota_us: 50000",
				blkio + "blkio.throttle.read_bps_device: 8:0 1048576", blkio + "blkio.throttle.write_bps_device: 8:0 1048576"}},
		{name: "zero is unset", l: Limits{}},
		{name: "no swap accounting", noSwap: true, l: Limits{MemoryBytes: 8192},
			want: []string{mem + "memory.limit_in_bytes: 8192", mem + "memory.memsw.limit_in_bytes: 8192"}},
		{name: "io on no block device", l: Limits{IOBytesPerSec: 7, IODevice: "/tmpfs"}},
		{name: "no blkio mount", mounts: map[string]string{"memory": "memory", "pids": "pids", "cpu": "cpu,cpuacct"},
			l: Limits{PidsMax: 2, IOBytesPerSec: 7, IODevice: "/data"}, want: []string{pids + "pids.max: 2"}},
		{name: "pids past the kernel's maximum", l: Limits{PidsMax: 1 << 62}, want: []string{pids + "pids.max: max"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mounts := tc.mounts
			if mounts == nil {
				mounts = v1Mounts()
			}
			k, h := fakeV1(t, mounts)
			k.noSwap = tc.noSwap
			r, err := h.NewRun("run1")
			if err != nil {
				t.Fatal(err)
			}
			if len(k.writes) != 0 {
				t.Errorf("NewRun wrote %v; v1 needs no writes", k.writes)
			}
			g, err := r.NewGroup("call-1", tc.l)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, k.writes); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
			k.writes = nil
			if err := g.Join(77); err != nil {
				t.Fatal(err)
			}
			var wantJoin []string
			for _, d := range []string{"pids/run1/call-1", "memory/process_api/abc/run1/call-1", "cpu,cpuacct/run1/call-1", "blkio/run1/call-1"} {
				if _, ok := mounts[strings.Split(d, "/")[0]]; ok || d == "cpu,cpuacct/run1/call-1" {
					wantJoin = append(wantJoin, d+"/cgroup.procs: 77")
				}
			}
			if diff := cmp.Diff(wantJoin, k.writes); diff != "" {
				t.Errorf("Join's writes (-want +got):\n%s", diff)
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]int{77}, k.killed); diff != "" {
				t.Errorf("killed by Run.Close (-want +got):\n%s", diff)
			}
			for ctl, folder := range mounts {
				own := "/"
				if ctl == "memory" {
					own = "/process_api/abc"
				}
				if k.exists(folder + own + "/run1") {
					t.Errorf("%s: run1 left after Run.Close", folder)
				}
			}
		})
	}
}

// TestV1SharedMount: controllers mounted together get one folder, joined
// once.
func TestV1SharedMount(t *testing.T) {
	k, h := fakeV1(t, map[string]string{"memory": "memory,pids", "pids": "memory,pids", "cpu": "cpu"})
	r, err := h.NewRun("run1")
	if err != nil {
		t.Fatal(err)
	}
	g, err := r.NewGroup("c", Limits{MemoryBytes: 4096, PidsMax: 3})
	if err != nil {
		t.Fatal(err)
	}
	k.writes = nil
	if err := g.Join(5); err != nil {
		t.Fatal(err)
	}
	want := []string{"memory,pids/process_api/abc/run1/c/cgroup.procs: 5", "cpu/run1/c/cgroup.procs: 5"}
	if diff := cmp.Diff(want, k.writes); diff != "" {
		t.Errorf("Join's writes (-want +got):\n%s", diff)
	}
	if got := k.read("memory,pids/process_api/abc/run1/c/pids.max"); got != "3" {
		t.Errorf("pids.max = %q, want 3", got)
	}
}

func TestV1Killed(t *testing.T) {
	for _, tc := range []struct {
		name, oomControl, pidsEvents, want string
	}{
		{"nothing", "", "", ""},
		{"oom kill", "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n", "", KilledMemory},
		{"before Linux 4.13, under oom", "oom_kill_disable 0\nunder_oom 1\n", "", KilledMemory},
		{"before Linux 4.13, not under oom", "oom_kill_disable 0\nunder_oom 0\n", "", ""},
		{"refused fork", "", "max 3\n", KilledPids},
		{"both: the kill", "oom_kill 1\n", "max 3\n", KilledMemory},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, h := fakeV1(t, v1Mounts())
			r, err := h.NewRun("run1")
			if err != nil {
				t.Fatal(err)
			}
			g, err := r.NewGroup("c", Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.oomControl != "" {
				k.file("memory/process_api/abc/run1/c/memory.oom_control", tc.oomControl)
			}
			if tc.pidsEvents != "" {
				k.file("pids/run1/c/pids.events", tc.pidsEvents)
			}
			if got := g.Killed(); got != tc.want {
				t.Errorf("Killed() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestOpenV1Missing(t *testing.T) {
	k := newFakeKernel(t, false)
	_, err := OpenV1(map[string]string{"memory": k.root, "blkio": k.root}, map[string]string{})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "no v1 hierarchy for pids, cpu") {
		t.Errorf("OpenV1 without pids and cpu: %v; want ErrUnavailable naming them", err)
	}
}
