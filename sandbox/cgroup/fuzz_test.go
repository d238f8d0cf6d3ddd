package cgroup

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzEventFiles feeds the parsers of the kernel's counter and process
// files arbitrary text: they must not panic, and a value they find must
// be on a line that starts with the key.
func FuzzEventFiles(f *testing.F) {
	f.Add([]byte("low 0\nhigh 0\nmax 12\noom 3\noom_kill 2\n"), "oom_kill")
	f.Add([]byte("oom_kill_disable 0\nunder_oom 1\n"), "under_oom")
	f.Add([]byte("max 18446744073709551615"), "max")
	f.Add([]byte("1\n22\n333\n"), "max")
	f.Fuzz(func(t *testing.T, contents []byte, key string) {
		if n, ok := keyedValue(contents, key); ok {
			if !bytes.HasPrefix(contents, []byte(key+" ")) && !bytes.Contains(contents, []byte("\n"+key+" ")) {
				t.Errorf("keyedValue(%q, %q) = %d from no line of that key", contents, key, n)
			}
		}
		for _, p := range pidList(contents) {
			if p <= 0 {
				t.Errorf("pidList(%q) holds %d", contents, p)
			}
		}
	})
}

// FuzzMountinfo feeds the parsers of /proc/self/mountinfo and
// /proc/self/cgroup arbitrary text: they must not panic, and what they
// return must have the shape the rest of the package relies on.
func FuzzMountinfo(f *testing.F) {
	f.Add([]byte("34 30 0:31 /docker/a\\040b /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n"),
		[]byte("4:memory:/process_api/7e\n0::/\n"))
	f.Add([]byte("40 30 0:37 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"), []byte("0::/user.slice\n"))
	f.Fuzz(func(t *testing.T, mountinfo, self []byte) {
		for _, m := range cgroupMounts(mountinfo) {
			if rel, ok := within(m.root, "/x"); ok && !strings.HasPrefix(rel, "/") {
				t.Errorf("within(%q, /x) = %q", m.root, rel)
			}
		}
		pc := parseProcCgroup(self)
		if pc.hasUnified && !strings.HasPrefix(pc.unified, "/") {
			t.Errorf("unified path %q is not absolute", pc.unified)
		}
		for c, p := range pc.v1 {
			if c == "" || !strings.HasPrefix(p, "/") {
				t.Errorf("v1 %q -> %q", c, p)
			}
		}
	})
}
