package cgroup

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const base2 = "user.slice/me"

// fakeV2 is a unified hierarchy whose own cgroup (base2) has the
// controllers ctls and holds procs.
func fakeV2(t *testing.T, ctls, procs string) (*fakeKernel, *Hierarchy) {
	t.Helper()
	k := newFakeKernel(t, true)
	k.file(base2+"/cgroup.controllers", ctls+"\n")
	k.file(base2+"/cgroup.subtree_control", "")
	k.file(base2+"/cgroup.procs", procs)
	h, err := OpenV2(k.root, "/"+base2)
	if err != nil {
		t.Fatalf("OpenV2: %v", err)
	}
	h.sys = k.sys()
	return k, h
}

func TestV2NewGroupWrites(t *testing.T) {
	for _, tc := range []struct {
		name   string
		noSwap bool
		l      Limits
		want   []string
	}{
		{name: "all four", l: Limits{MemoryBytes: 64 << 20, PidsMax: 32, CPUPercent: 50, IOBytesPerSec: 1 << 20, IODevice: "/data"},
			want: []string{"memory.max: 67108864", "memory.swap.max: 0", "pids.max: 32", "cpu.max: 50000 100000",
				"io.max: 8:0 rbps=1048576 wbps=1048576"}},
		{name: "zero is unset", l: Limits{}},
		{name: "no swap accounting", noSwap: true, l: Limits{MemoryBytes: 4096},
			want: []string{"memory.max: 4096", "memory.swap.max: 0"}},
		{name: "io on no block device", l: Limits{IOBytesPerSec: 5, IODevice: "/tmpfs"}},
		{name: "io on a path not there", l: Limits{IOBytesPerSec: 5, IODevice: "/gone"}},
		{name: "io without a device", l: Limits{IOBytesPerSec: 5}},
		{name: "pids past the kernel's maximum", l: Limits{PidsMax: 1 << 40}, want: []string{"pids.max: max"}},
		{name: "pids at the kernel's maximum", l: Limits{PidsMax: pidsLimitMax - 1}, want: []string{"pids.max: 4194304"}},
		{name: "ten CPUs", l: Limits{CPUPercent: 1000}, want: []string{"cpu.max: 1000000 100000"}},
		{name: "largest percent", l: Limits{CPUPercent: 1<<32 - 1}, want: []string{"cpu.max: 4294967295000 100000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, h := fakeV2(t, "cpuset cpu io memory pids", "")
			k.noSwap = tc.noSwap
			r, err := h.NewRun("run1")
			if err != nil {
				t.Fatal(err)
			}
			k.writes = nil
			g, err := r.NewGroup("call-1", tc.l)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, w := range tc.want {
				want = append(want, base2+"/run1/call-1/"+w)
			}
			if diff := cmp.Diff(want, k.writes); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
			for _, w := range tc.want {
				file, data, _ := strings.Cut(w, ": ")
				if tc.noSwap && file == "memory.swap.max" {
					continue
				}
				if got := k.read(base2 + "/run1/call-1/" + file); got != data {
					t.Errorf("%s holds %q, want %q", file, got, data)
				}
			}
			if err := g.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestV2NewRunDelegates(t *testing.T) {
	for _, tc := range []struct {
		name, ctls, procs, subtree string
		want                       []string
		moved                      bool
		unavailable                string // text the ErrUnavailable error holds
	}{
		{name: "empty cgroup", ctls: "cpu io memory pids", want: []string{
			base2 + "/cgroup.subtree_control: +memory +pids +cpu +io",
			base2 + "/run1/cgroup.subtree_control: +memory +pids +cpu +io"}},
		{name: "no io controller", ctls: "cpu memory pids", want: []string{
			base2 + "/cgroup.subtree_control: +memory +pids +cpu",
			base2 + "/run1/cgroup.subtree_control: +memory +pids +cpu"}},
		{name: "already enabled", ctls: "cpu io memory pids", subtree: "cpu io memory pids", want: []string{
			base2 + "/run1/cgroup.subtree_control: +memory +pids +cpu +io"}},
		{name: "murmur-eval alone: moves into its leaf", ctls: "cpu io memory pids", procs: "4242\n", moved: true, want: []string{
			base2 + "/cgroup.subtree_control: +memory +pids +cpu +io",
			base2 + "/murmur-eval-supervisor/cgroup.procs: 4242",
			base2 + "/cgroup.subtree_control: +memory +pids +cpu +io",
			base2 + "/run1/cgroup.subtree_control: +memory +pids +cpu +io"}},
		{name: "other processes", ctls: "cpu io memory pids", procs: "4242\n77\n78\n", want: []string{
			base2 + "/cgroup.subtree_control: +memory +pids +cpu +io"},
			unavailable: "holds 2 other processes besides murmur-eval"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, h := fakeV2(t, tc.ctls, tc.procs)
			k.file(base2+"/cgroup.subtree_control", tc.subtree)
			r, err := h.NewRun("run1")
			if diff := cmp.Diff(tc.want, k.writes); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
			if tc.unavailable != "" {
				if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), tc.unavailable) {
					t.Fatalf("NewRun: %v; want ErrUnavailable saying %q", err, tc.unavailable)
				}
				if k.exists(base2 + "/run1") {
					t.Error("run1 made although the run failed")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := k.exists(base2 + "/" + supervisorLeaf); got != tc.moved {
				t.Errorf("supervisor leaf exists: %v, want %v", got, tc.moved)
			}
			if tc.moved {
				if got := k.read(base2 + "/" + supervisorLeaf + "/cgroup.procs"); got != "4242\n" {
					t.Errorf("leaf's cgroup.procs = %q, want 4242", got)
				}
				if got := k.read(base2 + "/cgroup.procs"); got != "" {
					t.Errorf("base's cgroup.procs = %q, want it empty", got)
				}
			}
			// The call's group gets every controller's files.
			if _, err := r.NewGroup("c", Limits{MemoryBytes: 1 << 20, PidsMax: 1, CPUPercent: 1}); err != nil {
				t.Fatalf("NewGroup: %v", err)
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			if k.exists(base2 + "/run1") {
				t.Error("run1 left after Run.Close")
			}
		})
	}
}

func TestOpenV2(t *testing.T) {
	for _, tc := range []struct {
		name, ctls, own, wantBase, unavailable string
	}{
		{name: "delegated", ctls: "cpu memory pids", own: "/" + base2, wantBase: base2},
		{name: "from inside the supervisor leaf", ctls: "cpu memory pids", own: "/" + base2 + "/" + supervisorLeaf, wantBase: base2},
		{name: "leaf in a leaf", ctls: "cpu memory pids", own: "/" + base2 + "/" + supervisorLeaf + "/" + supervisorLeaf, wantBase: base2},
		{name: "hybrid host's unified mount", ctls: "hugetlb", own: "/" + base2,
			unavailable: "controllers memory, pids, cpu are not delegated to"},
		{name: "pids not delegated", ctls: "cpu memory", own: "/" + base2, unavailable: "controllers pids are not delegated"},
		{name: "nothing delegated", ctls: "", own: "/" + base2, unavailable: "(it has: none)"},
		{name: "no such cgroup", ctls: "cpu memory pids", own: "/elsewhere", unavailable: "cannot read the controllers of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newFakeKernel(t, true)
			k.file(base2+"/cgroup.controllers", tc.ctls)
			k.file(base2+"/"+supervisorLeaf+"/"+supervisorLeaf+"/cgroup.controllers", "")
			h, err := OpenV2(k.root, tc.own)
			if tc.unavailable != "" {
				if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), tc.unavailable) {
					t.Fatalf("OpenV2: %v; want ErrUnavailable saying %q", err, tc.unavailable)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.Version() != 2 || h.base != filepath.Join(k.root, tc.wantBase) {
				t.Errorf("version %d, base %s; want 2, %s", h.Version(), h.base, tc.wantBase)
			}
		})
	}
}

func TestV2Killed(t *testing.T) {
	for _, tc := range []struct {
		name, memEvents, pidsEvents, want string
	}{
		{"nothing", "", "", ""},
		{"oom kill", "low 0\nhigh 3\nmax 9\noom 1\noom_kill 1\noom_group_kill 0\n", "", KilledMemory},
		{"oom without a kill", "low 0\nhigh 3\nmax 9\noom 1\noom_kill 0\n", "", ""},
		{"refused fork", "", "max 12\n", KilledPids},
		{"both: the kill", "oom 1\noom_kill 2\n", "max 1\n", KilledMemory},
		{"the host's OOM killer, not the group's limit", "max 0\noom 0\noom_kill 1\n", "", ""},
		{"memory.max hits only", "max 40\noom_kill 0\n", "max 0\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, h := fakeV2(t, "cpu memory pids", "")
			r, err := h.NewRun("run1")
			if err != nil {
				t.Fatal(err)
			}
			g, err := r.NewGroup("c", Limits{PidsMax: 5})
			if err != nil {
				t.Fatal(err)
			}
			if got := g.Killed(); got != "" {
				t.Fatalf("new group: Killed() = %q, want \"\"", got)
			}
			if tc.memEvents != "" {
				k.file(base2+"/run1/c/memory.events", tc.memEvents)
			}
			if tc.pidsEvents != "" {
				k.file(base2+"/run1/c/pids.events", tc.pidsEvents)
			}
			if got := g.Killed(); got != tc.want {
				t.Errorf("Killed() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestV2Close(t *testing.T) {
	for _, tc := range []struct {
		name       string
		noKill     bool
		wantWrites []string
		wantKilled []int
	}{
		{name: "cgroup.kill", wantWrites: []string{base2 + "/run1/c/cgroup.procs: 10", base2 + "/run1/c/cgroup.procs: 11",
			base2 + "/run1/c/cgroup.kill: 1"}},
		{name: "before cgroup.kill", noKill: true, wantWrites: []string{base2 + "/run1/c/cgroup.procs: 10",
			base2 + "/run1/c/cgroup.procs: 11", base2 + "/run1/c/cgroup.kill: 1"}, wantKilled: []int{10, 11}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, h := fakeV2(t, "cpu memory pids", "")
			k.noKill = tc.noKill
			r, err := h.NewRun("run1")
			if err != nil {
				t.Fatal(err)
			}
			g, err := r.NewGroup("c", Limits{})
			if err != nil {
				t.Fatal(err)
			}
			for _, pid := range []int{10, 11} {
				if err := g.Join(pid); err != nil {
					t.Fatal(err)
				}
			}
			if p, err := g.Procs(); err != nil || !cmp.Equal(p, []int{10, 11}) {
				t.Fatalf("Procs() = %v, %v; want [10 11]", p, err)
			}
			k.writes = nil
			if err := g.Close(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantWrites[2:], k.writes); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantKilled, k.killed); diff != "" {
				t.Errorf("killed (-want +got):\n%s", diff)
			}
			if k.exists(base2 + "/run1/c") {
				t.Error("group left after Close")
			}
			if err := g.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
		})
	}
}

// TestRunCloseClosesOpenGroups: a run closed with calls' groups still open
// kills their processes and removes everything it made.
func TestRunCloseClosesOpenGroups(t *testing.T) {
	k, h := fakeV2(t, "cpu memory pids", "")
	r, err := h.NewRun("run1")
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"a", "b", "c"} {
		g, err := r.NewGroup(name, Limits{PidsMax: 3})
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Join(100 + i); err != nil {
			t.Fatal(err)
		}
		if name == "b" {
			if err := g.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if k.exists(base2 + "/run1") {
		t.Error("run1 left after Run.Close")
	}
	if _, err := r.NewGroup("late", Limits{}); err == nil {
		t.Error("NewGroup after Run.Close succeeded")
	}
}

func TestNewGroupRefusesNames(t *testing.T) {
	_, h := fakeV2(t, "cpu memory pids", "")
	r, err := h.NewRun("run1")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"", ".", "..", "../x", "a/b", "memory.max", "cgroup.procs", "call 1", strings.Repeat("x", 129)} {
		if g, err := r.NewGroup(name, Limits{}); err == nil {
			t.Errorf("NewGroup(%q) made %v", name, g.dirs)
		}
	}
	if _, err := h.NewRun("../up"); err == nil {
		t.Error(`NewRun("../up") succeeded`)
	}
}
