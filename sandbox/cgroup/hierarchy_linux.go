package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// supervisorLeaf is the child of its own v2 cgroup murmur-eval moves
// itself into when that cgroup must hand controllers to its children and
// murmur-eval is the only process in it (the no-internal-processes rule).
const supervisorLeaf = "murmur-eval-supervisor"

// The controllers every call's group gets, by their v2 names; "io" is
// best effort and joins them where the host has it.
var required = []string{"memory", "pids", "cpu"} //nolint:gochecknoglobals // read-only

// Hierarchy is where this process may make cgroups: cgroup v2's unified
// tree, or the v1 hierarchies of the memory, pids, cpu and (when mounted)
// blkio controllers. It is safe for concurrent use.
type Hierarchy struct {
	version int
	// own maps each controller (by its v2 name: memory, pids, cpu, io) to
	// this process's cgroup folder in the hierarchy that has it; on v2 all
	// are base.
	own  map[string]string
	base string // v2: this process's cgroup (above any supervisor leaf)
	sys  sysOps
	mu   sync.Mutex // NewRun's enabling of controllers on v2
}

// Version is 2 for the unified hierarchy, 1 for v1 controllers.
func (h *Hierarchy) Version() int { return h.version }

// Detect finds a usable hierarchy for this process from
// /proc/self/mountinfo and /proc/self/cgroup: cgroup v2 where its unified
// hierarchy holds the memory, pids and cpu controllers for this process's
// cgroup, otherwise the v1 memory, pids and cpu hierarchies. The error
// wraps ErrUnavailable and says why neither is usable.
func Detect() (*Hierarchy, error) {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, unavailable(fmt.Sprintf("cannot read /proc/self/mountinfo: %v", err))
	}
	pcg, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, unavailable(fmt.Sprintf("cannot read /proc/self/cgroup: %v", err))
	}
	return detect(cgroupMounts(mi), parseProcCgroup(pcg))
}

func detect(mounts []mount, pc procCgroup) (*Hierarchy, error) {
	var reasons []string
	if pc.hasUnified {
		h, err := openV2Mount(mounts, pc.unified)
		if err == nil {
			return h, nil
		}
		reasons = append(reasons, "cgroup v2: "+err.Error())
	}
	if len(pc.v1) > 0 {
		h, err := openV1Mounts(mounts, pc.v1)
		if err == nil {
			return h, nil
		}
		reasons = append(reasons, "cgroup v1: "+err.Error())
	}
	if len(reasons) == 0 {
		return nil, unavailable("this process is in no cgroup (/proc/self/cgroup is empty)")
	}
	return nil, unavailable(strings.Join(reasons, "; "))
}

// openV2Mount opens the cgroup2 mount that shows this process's cgroup.
func openV2Mount(mounts []mount, own string) (*Hierarchy, error) {
	seen := false
	for _, m := range mounts {
		if !m.v2 {
			continue
		}
		seen = true
		rel, ok := within(m.root, own)
		if !ok {
			continue
		}
		if m.readOnly {
			return nil, fmt.Errorf("%s is mounted read-only", m.point)
		}
		return OpenV2(m.point, rel)
	}
	if !seen {
		return nil, errors.New("no cgroup2 file system is mounted")
	}
	return nil, fmt.Errorf("no cgroup2 mount shows this process's cgroup %s", own)
}

// OpenV2 opens the unified hierarchy mounted at mount for a process whose
// cgroup is ownPath (the "0::" line's path). A path ending in murmur-eval's
// supervisor leaf stands for the cgroup above it: a murmur-eval started by
// one that moved there starts in the leaf. The error names the required
// controllers the cgroup does not offer, or says it is not writable.
func OpenV2(mount, ownPath string) (*Hierarchy, error) {
	base := filepath.Join(mount, filepath.Clean("/"+ownPath))
	for filepath.Base(base) == supervisorLeaf && base != filepath.Clean(mount) {
		base = filepath.Dir(base)
	}
	b, err := readFile(filepath.Join(base, "cgroup.controllers"))
	if err != nil {
		return nil, unavailable(fmt.Sprintf("cannot read the controllers of %s: %v", base, err))
	}
	have := strings.Fields(string(b))
	var missing []string
	for _, c := range required {
		if !slices.Contains(have, c) {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return nil, unavailable(fmt.Sprintf("controllers %s are not delegated to %s (it has: %s)",
			strings.Join(missing, ", "), base, listOrNone(have)))
	}
	if err := writable(base); err != nil {
		return nil, err
	}
	h := &Hierarchy{version: 2, base: base, own: map[string]string{}, sys: realSys()}
	for _, c := range required {
		h.own[c] = base
	}
	if slices.Contains(have, "io") {
		h.own["io"] = base
	}
	return h, nil
}

// v1Names maps the v2 controller names to v1's.
var v1Names = map[string]string{"memory": "memory", "pids": "pids", "cpu": "cpu", "io": "blkio"} //nolint:gochecknoglobals // read-only

// openV1Mounts finds each v1 controller's mount and this process's folder
// in it.
func openV1Mounts(mounts []mount, own map[string]string) (*Hierarchy, error) {
	points, rels := map[string]string{}, map[string]string{}
	var problems []string
	for _, c := range append(slices.Clone(required), "io") {
		name := v1Names[c]
		path, inGroup := own[name]
		found := false
		for _, m := range mounts {
			if m.v2 || !m.has(name) {
				continue
			}
			rel, ok := within(m.root, path)
			if !inGroup || !ok {
				continue
			}
			if m.readOnly {
				problems = append(problems, fmt.Sprintf("%s is mounted read-only", m.point))
				found = true
				break
			}
			points[name], rels[name], found = m.point, rel, true
			break
		}
		if !found && c != "io" {
			problems = append(problems, fmt.Sprintf("the %s controller is not mounted where this process's cgroup shows", name))
		}
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, ", "))
	}
	return OpenV1(points, rels)
}

// OpenV1 opens v1 hierarchies: mounts maps a v1 controller name (memory,
// pids, cpu, blkio) to its mount point, own to this process's cgroup path
// within that mount. memory, pids and cpu are required; blkio is used when
// given. Controllers mounted together (cpu,cpuacct) share a folder.
func OpenV1(mounts, own map[string]string) (*Hierarchy, error) {
	h := &Hierarchy{version: 1, own: map[string]string{}, sys: realSys()}
	var missing []string
	for _, c := range append(slices.Clone(required), "io") {
		point, ok := mounts[v1Names[c]]
		if !ok {
			if c != "io" {
				missing = append(missing, v1Names[c])
			}
			continue
		}
		h.own[c] = filepath.Join(point, filepath.Clean("/"+own[v1Names[c]]))
	}
	if len(missing) > 0 {
		return nil, unavailable("no v1 hierarchy for " + strings.Join(missing, ", "))
	}
	for _, dir := range h.dirs() {
		if err := writable(dir); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// dirs are the distinct folders of own, in a fixed order (pids first: a
// process joining is counted against pids.max before anything else).
func (h *Hierarchy) dirs() []string { return distinct(h.own) }

func distinct(m map[string]string) []string {
	var out []string
	for _, c := range []string{"pids", "memory", "cpu", "io"} {
		if d, ok := m[c]; ok && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// writable says why this process may not make a folder in dir: no write
// access (not root, and nothing delegated the folder to this user).
func writable(dir string) error {
	err := unix.Faccessat(unix.AT_FDCWD, dir, unix.W_OK, unix.AT_EACCESS)
	if err == nil {
		return nil
	}
	if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) || errors.Is(err, unix.EROFS) {
		return unavailable(fmt.Sprintf("%s is not writable by uid %d (%v): murmur-eval needs root or a delegated cgroup there",
			dir, os.Geteuid(), err))
	}
	return unavailable(fmt.Sprintf("cannot use %s: %v", dir, err))
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, " ")
}
