package cgroup

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Group is one call's cgroup: a folder below the run's in each hierarchy,
// with the call's limits.
type Group struct {
	run    *Run
	dirs   map[string]string // controller -> the group's folder
	closed bool              // guarded by run.mu
}

// NewGroup makes the group name (letters, digits, '-', '_'; unique in the
// run) with limits l. A zero field of l leaves that limit unset; the I/O
// throttle is best effort (nothing when IODevice is on no block device,
// or the kernel refuses it).
func (r *Run) NewGroup(name string, l Limits) (*Group, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	g := &Group{run: r, dirs: map[string]string{}}
	sys := &r.h.sys
	for _, rd := range distinct(r.dirs) {
		dir := filepath.Join(rd, name)
		if err := sys.mkdir(dir); err != nil {
			g.remove()
			return nil, errcode.Wrap(errcode.IO, err, "make the call's cgroup %s", dir)
		}
		for c, d := range r.dirs {
			if d == rd {
				g.dirs[c] = dir
			}
		}
	}
	if err := g.limit(l); err != nil {
		g.remove()
		return nil, errcode.Wrap(errcode.IO, err, "set the call's cgroup limits")
	}
	r.mu.Lock()
	closed := r.closed
	if !closed {
		r.groups[g] = struct{}{}
	}
	r.mu.Unlock()
	if closed {
		g.remove()
		return nil, errcode.New(errcode.Internal, "cgroup %s made after its run was closed", name)
	}
	return g, nil
}

// limit writes l's limits into the group's interface files.
func (g *Group) limit(l Limits) error {
	v2 := g.run.h.version == 2
	var w []fileWrite
	if l.MemoryBytes > 0 {
		mem := uitoa(l.MemoryBytes)
		if v2 {
			// swap.max 0: what memory.max bounds is all the group may hold
			// (the file is absent without swap accounting).
			w = append(w, fileWrite{"memory", "memory.max", mem, false}, fileWrite{"memory", "memory.swap.max", "0", true})
		} else {
			// memsw (memory + swap) at the same value: no swap beyond it.
			w = append(w, fileWrite{"memory", "memory.limit_in_bytes", mem, false},
				fileWrite{"memory", "memory.memsw.limit_in_bytes", mem, true})
		}
	}
	if l.PidsMax > 0 {
		w = append(w, fileWrite{"pids", "pids.max", pidsValue(l.PidsMax), false})
	}
	if l.CPUPercent > 0 {
		q := uitoa(cpuQuota(l.CPUPercent))
		if v2 {
			w = append(w, fileWrite{"cpu", "cpu.max", q + " " + uitoa(cpuPeriodUs), false})
		} else {
			// The kernel starts every group's cpu.cfs_period_us at 100 ms
			// (not the parent's): only the quota is written.
			w = append(w, fileWrite{"cpu", "cpu.cfs_quota_us", q, false})
		}
	}
	for _, x := range w {
		if err := g.run.h.sys.write(filepath.Join(g.dirs[x.ctl], x.file), x.data); err != nil {
			if x.optional && errors.Is(err, unix.ENOENT) {
				continue
			}
			return err
		}
	}
	g.throttle(l)
	return nil
}

type fileWrite struct {
	ctl, file, data string
	optional        bool // skipped when the file does not exist
}

// throttle sets the I/O limit where it can, quietly (murmur's io.max is
// best effort too): the bound that matters least, on the device the
// kernel is least sure to accept.
func (g *Group) throttle(l Limits) {
	dir, ok := g.dirs["io"]
	if l.IOBytesPerSec == 0 || l.IODevice == "" || !ok {
		return
	}
	dev := g.run.device(l.IODevice)
	if dev == "" {
		return
	}
	bps := uitoa(l.IOBytesPerSec)
	sys := &g.run.h.sys
	if g.run.h.version == 2 {
		_ = sys.write(filepath.Join(dir, "io.max"), dev+" rbps="+bps+" wbps="+bps)
		return
	}
	_ = sys.write(filepath.Join(dir, "blkio.throttle.read_bps_device"), dev+" "+bps)
	_ = sys.write(filepath.Join(dir, "blkio.throttle.write_bps_device"), dev+" "+bps)
}

// Join moves process pid (with all its threads) into the group, in every
// hierarchy. Join the call's first process before it may fork: a child
// forked before stays where it was.
func (g *Group) Join(pid int) error {
	for _, dir := range distinct(g.dirs) {
		if err := g.run.h.sys.write(filepath.Join(dir, "cgroup.procs"), uitoa(uint64(pid))); err != nil {
			return errcode.Wrap(errcode.IO, err, "move process %d into its cgroup", pid)
		}
	}
	return nil
}

// Procs lists the processes in the group (v1: in its pids hierarchy).
func (g *Group) Procs() ([]int, error) {
	b, err := readFile(filepath.Join(g.dirs["pids"], "cgroup.procs"))
	if err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "list the processes of a cgroup")
	}
	return pidList(b), nil
}

// Killed names the limit that ended or refused something in the group
// since it was made: KilledMemory when the OOM killer killed a process of
// the group at its memory limit (memory.events oom and oom_kill; v1
// memory.oom_control oom_kill, which counts any OOM kill there), else
// KilledPids when pids.max refused a fork (pids.events max), else "". A
// new group's counters are zero, so the counts are the growth. Read it
// before Close, which removes the files.
func (g *Group) Killed() string {
	var oom uint64
	if g.run.h.version == 2 {
		b, _ := readFile(filepath.Join(g.dirs["memory"], "memory.events"))
		// oom counts the times this group's own memory.max was met with
		// nothing left to reclaim; oom_kill also counts kills by the host's
		// OOM killer or an ancestor's limit, which are not the call's limit.
		if n, _ := keyedValue(b, "oom"); n > 0 {
			oom, _ = keyedValue(b, "oom_kill")
		}
	} else {
		b, _ := readFile(filepath.Join(g.dirs["memory"], "memory.oom_control"))
		var ok bool
		if oom, ok = keyedValue(b, "oom_kill"); !ok {
			// Before Linux 4.13 there is no kill count; a group whose OOM
			// killer is still at work says under_oom 1. memory.failcnt is
			// no sign: it counts every charge reclaim then satisfied.
			oom, _ = keyedValue(b, "under_oom")
		}
	}
	return attribution(oom, counter(filepath.Join(g.dirs["pids"], "pids.events"), "max"))
}

func counter(path, key string) uint64 {
	b, err := readFile(path)
	if err != nil {
		return 0
	}
	n, _ := keyedValue(b, key)
	return n
}

// Close kills what is left in the group (cgroup.kill on v2 where the
// kernel has it, SIGKILL to each listed process until none is left
// otherwise), waits for it to empty and removes its folders, retrying
// while the kernel still counts a dying process; all of it within 2 s.
// A second Close does nothing.
func (g *Group) Close() error {
	// Under the run's lock: Run.Close may close a group its call's
	// goroutine is closing too.
	g.run.mu.Lock()
	closed := g.closed
	g.closed = true
	delete(g.run.groups, g)
	g.run.mu.Unlock()
	if closed {
		return nil
	}
	deadline := time.Now().Add(closeWait)
	sys := &g.run.h.sys
	var first error
	// The pids folder first: when it goes, no process was left anywhere
	// (a process is in every hierarchy once joined). Each rmdir is also
	// the check: the kernel refuses (EBUSY) a folder with processes, and
	// only then are they listed and killed.
	for _, dir := range distinct(g.dirs) {
		err := sys.rmdir(dir)
		if err == nil || errors.Is(err, unix.ENOENT) {
			continue
		}
		if errors.Is(err, unix.EBUSY) {
			err = g.empty(dir, deadline)
			if err == nil {
				err = sys.rmdirRetry(dir, deadline)
			}
		}
		if err != nil && first == nil {
			first = errcode.Wrap(errcode.IO, err, "remove a call's cgroup")
		}
	}
	return first
}

// empty kills the processes in the group's folder dir and waits until
// none is listed.
func (g *Group) empty(dir string, deadline time.Time) error {
	procs := filepath.Join(dir, "cgroup.procs")
	sys := &g.run.h.sys
	// cgroup.kill (Linux 5.14) kills the whole group at once, forks in
	// flight included; without it a fork bomb is killed in rounds, each
	// bounded by pids.max.
	all := g.run.h.version == 2 && sys.write(filepath.Join(dir, "cgroup.kill"), "1") == nil
	wait := 100 * time.Microsecond
	for {
		b, err := readFile(procs)
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		if err != nil {
			return err
		}
		pids := pidList(b)
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d processes still in %s %v after SIGKILL", len(pids), dir, closeWait)
		}
		if !all {
			for _, p := range pids {
				_ = sys.kill(p)
			}
		}
		time.Sleep(wait)
		wait = min(2*wait, 10*time.Millisecond)
	}
}

// remove undoes a NewGroup that failed half way.
func (g *Group) remove() {
	for _, dir := range distinct(g.dirs) {
		_ = g.run.h.sys.rmdir(dir)
	}
}
