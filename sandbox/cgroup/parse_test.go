package cgroup

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestKeyedValue(t *testing.T) {
	for _, tc := range []struct {
		name, contents, key string
		want                uint64
		ok                  bool
	}{
		{"memory.events", "low 0\nhigh 0\nmax 12\noom 3\noom_kill 2\noom_group_kill 0\n", "oom_kill", 2, true},
		{"key is a prefix of another", "oom_kill_disable 0\nunder_oom 0\noom_kill 5\n", "oom_kill", 5, true},
		{"pids.events", "max 7\n", "max", 7, true},
		{"no final newline", "max 7", "max", 7, true},
		{"absent", "low 0\n", "oom_kill", 0, false},
		{"empty", "", "max", 0, false},
		{"no value", "oom_kill\n", "oom_kill", 0, false},
		{"not a number", "oom_kill many\n", "oom_kill", 0, false},
		{"negative", "max -1\n", "max", 0, false},
		{"past 64 bits", "max 18446744073709551616\n", "max", 0, false},
		{"largest", "max 18446744073709551615\n", "max", 1<<64 - 1, true},
		{"first of two", "max 1\nmax 2\n", "max", 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := keyedValue([]byte(tc.contents), tc.key)
			if got != tc.want || ok != tc.ok {
				t.Errorf("keyedValue(%q, %q) = %d, %v; want %d, %v", tc.contents, tc.key, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestPidList(t *testing.T) {
	if diff := cmp.Diff([]int{1, 23, 456}, pidList([]byte("1\n23\n456\n"))); diff != "" {
		t.Errorf("pidList (-want +got):\n%s", diff)
	}
	if got := pidList([]byte("\n0\n-3\nx\n9999999999999999999999\n")); got != nil {
		t.Errorf("pidList of junk = %v, want none", got)
	}
}

func TestCgroupMounts(t *testing.T) {
	mi := `21 26 0:20 / /proc rw,relatime - proc proc rw
30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
31 30 0:28 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:9 - cgroup cgroup rw,cpu,cpuacct
34 30 0:31 /docker/abc /sys/fs/cgroup/memory ro,nosuid - cgroup cgroup rw,memory
39 30 0:36 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
40 30 0:37 / /sys/fs/cgroup/uni\040fied rw,relatime - cgroup2 cgroup2 rw,nsdelegate
garbage line
41 30 0:38 / /short - cgroup
`
	want := []mount{
		{root: "/", point: "/sys/fs/cgroup/cpu,cpuacct", supers: []string{"rw", "cpu", "cpuacct"}},
		{root: "/docker/abc", point: "/sys/fs/cgroup/memory", readOnly: true, supers: []string{"rw", "memory"}},
		{root: "/", point: "/sys/fs/cgroup/systemd", supers: []string{"rw", "name=systemd"}},
		{root: "/", point: "/sys/fs/cgroup/uni fied", v2: true, supers: []string{"rw", "nsdelegate"}},
	}
	if diff := cmp.Diff(want, cgroupMounts([]byte(mi)), cmp.AllowUnexported(mount{})); diff != "" {
		t.Errorf("cgroupMounts (-want +got):\n%s", diff)
	}
}

func TestParseProcCgroup(t *testing.T) {
	got := parseProcCgroup([]byte("9:name=systemd:/\n4:memory:/process_api/7e\n2:cpu,cpuacct:/a:b\n0::/\nbad\n3:pids:relative\n"))
	want := procCgroup{unified: "/", hasUnified: true,
		v1: map[string]string{"name=systemd": "/", "memory": "/process_api/7e", "cpu": "/a:b", "cpuacct": "/a:b"}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(procCgroup{})); diff != "" {
		t.Errorf("parseProcCgroup (-want +got):\n%s", diff)
	}
	if v1only := parseProcCgroup([]byte("4:memory:/x\n")); v1only.hasUnified {
		t.Error("a v1-only host read as having a unified hierarchy")
	}
}

func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		root, own, want string
		ok              bool
	}{
		{"/", "/a/b", "/a/b", true},
		{"/docker/abc", "/docker/abc", "/", true},
		{"/docker/abc", "/docker/abc/x", "/x", true},
		{"/docker/abc", "/docker/abcd", "", false},
		{"/docker/abc", "/other", "", false},
	} {
		got, ok := within(tc.root, tc.own)
		if got != tc.want || ok != tc.ok {
			t.Errorf("within(%q, %q) = %q, %v; want %q, %v", tc.root, tc.own, got, ok, tc.want, tc.ok)
		}
	}
}

func TestLimitValues(t *testing.T) {
	for n, want := range map[uint64]string{1: "1", 4194304: "4194304", 4194305: "max", 1<<64 - 1: "max"} {
		if got := pidsValue(n); got != want {
			t.Errorf("pidsValue(%d) = %q, want %q", n, got, want)
		}
	}
	if got := cpuQuota(200); got != 200000 {
		t.Errorf("cpuQuota(200) = %d, want 200000", got)
	}
	if got := uitoa(1<<64 - 1); got != "18446744073709551615" {
		t.Errorf("uitoa(max) = %q", got)
	}
}
