package cgroup

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// closeWait bounds how long closing a group waits for its processes to
// die and the kernel to let the folder go.
const closeWait = 2 * time.Second

// Run is one run's parent group, below which each call gets its own. It
// is safe for concurrent use.
type Run struct {
	h    *Hierarchy
	dirs map[string]string // controller -> the run's folder

	mu     sync.Mutex
	groups map[*Group]struct{} // open groups, for Close
	devs   map[uint64]string   // st_dev -> the disk's "MAJ:MIN" ("" when none)
	closed bool
}

// NewRun makes the run's group, name (a single folder name of letters,
// digits, '-' and '_'; "" picks murmur-eval-<pid>-<random>), below this
// process's cgroup in each hierarchy. On v2 it first has this process's
// cgroup hand the controllers to its children, moving murmur-eval into a
// leaf of its own when it is the only process there; when other
// processes are there, or the cgroup may not be written, the error wraps
// ErrUnavailable.
func (h *Hierarchy) NewRun(name string) (*Run, error) {
	if name == "" {
		name = fmt.Sprintf("murmur-eval-%d-%08x", h.sys.pid, rand.Uint32())
	}
	if err := checkName(name); err != nil {
		return nil, err
	}
	if h.version == 2 {
		h.mu.Lock()
		err := h.delegate(h.base)
		h.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	r := &Run{h: h, dirs: map[string]string{}, groups: map[*Group]struct{}{}, devs: map[uint64]string{}}
	made := map[string]string{}
	for c, own := range h.own {
		dir, ok := made[own]
		if !ok {
			dir = filepath.Join(own, name)
			if err := h.sys.mkdir(dir); err != nil {
				r.removeDirs(made)
				if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
					return nil, unavailable(fmt.Sprintf("cannot make a cgroup in %s: %v", own, err))
				}
				return nil, errcode.Wrap(errcode.IO, err, "make the run's cgroup %s", dir)
			}
			made[own] = dir
		}
		r.dirs[c] = dir
	}
	if h.version == 2 {
		if err := h.sys.write(filepath.Join(r.dirs["pids"], "cgroup.subtree_control"), h.enableLine()); err != nil {
			r.removeDirs(made)
			return nil, errcode.Wrap(errcode.IO, err, "enable the controllers of the run's cgroup")
		}
	}
	return r, nil
}

// enableLine is what cgroup.subtree_control is given on v2.
func (h *Hierarchy) enableLine() string {
	var b strings.Builder
	for _, c := range []string{"memory", "pids", "cpu", "io"} {
		if _, ok := h.own[c]; ok {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString("+" + c)
		}
	}
	return b.String()
}

// delegate has base give its children the controllers (v2). The kernel
// refuses (EBUSY) while base itself holds processes, unless base is the
// root. When murmur-eval is the only one, it moves into a leaf of its own
// and tries again.
func (h *Hierarchy) delegate(base string) error {
	ctl := filepath.Join(base, "cgroup.subtree_control")
	if cur, err := readFile(ctl); err == nil && h.enabled(strings.Fields(string(cur))) {
		return nil
	}
	err := h.sys.write(ctl, h.enableLine())
	if err == nil {
		return nil
	}
	if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
		return unavailable(fmt.Sprintf("cannot enable controllers in %s: %v", ctl, err))
	}
	if !errors.Is(err, unix.EBUSY) {
		return errcode.Wrap(errcode.IO, err, "enable controllers in %s", ctl)
	}
	procs, rerr := readFile(filepath.Join(base, "cgroup.procs"))
	if rerr != nil {
		return errcode.Wrap(errcode.IO, rerr, "list the processes of %s", base)
	}
	others := 0
	for _, p := range pidList(procs) {
		if p != h.sys.pid {
			others++
		}
	}
	if others > 0 {
		return unavailable(fmt.Sprintf("%s holds %d other processes besides murmur-eval, so cgroup v2 lets it give no "+
			"controllers to groups below it; start murmur-eval in a cgroup of its own "+
			"(systemd-run --scope -p Delegate=yes murmur-eval ...)", base, others))
	}
	leaf := filepath.Join(base, supervisorLeaf)
	if err := h.sys.mkdir(leaf); err != nil && !errors.Is(err, unix.EEXIST) {
		return errcode.Wrap(errcode.IO, err, "make %s to leave %s", leaf, base)
	}
	if err := h.sys.write(filepath.Join(leaf, "cgroup.procs"), uitoa(uint64(h.sys.pid))); err != nil {
		return errcode.Wrap(errcode.IO, err, "move murmur-eval into %s", leaf)
	}
	if err := h.sys.write(ctl, h.enableLine()); err != nil {
		return unavailable(fmt.Sprintf("cannot enable controllers in %s after moving murmur-eval into %s: %v", ctl, leaf, err))
	}
	return nil
}

// enabled reports whether every controller the hierarchy uses is in on.
func (h *Hierarchy) enabled(on []string) bool {
	for c := range h.own {
		if !slices.Contains(on, c) {
			return false
		}
	}
	return true
}

// Close removes the run's group: it closes the calls' groups still open
// (killing what is in them) and removes the run's folders. It returns the
// first failure and goes on past it.
func (r *Run) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	open := make([]*Group, 0, len(r.groups))
	for g := range r.groups {
		open = append(open, g)
	}
	r.mu.Unlock()
	var first error
	for _, g := range open {
		if err := g.Close(); err != nil && first == nil {
			first = err
		}
	}
	deadline := time.Now().Add(closeWait)
	for _, dir := range distinct(r.dirs) {
		if err := r.h.sys.rmdirRetry(dir, deadline); err != nil && first == nil {
			first = errcode.Wrap(errcode.IO, err, "remove the run's cgroup")
		}
	}
	return first
}

// removeDirs undoes a NewRun that failed half way.
func (r *Run) removeDirs(made map[string]string) {
	for _, dir := range made {
		_ = r.h.sys.rmdir(dir)
	}
}

// device returns the throttle's "MAJ:MIN" for a path, "" for none: a
// stat a call, the device's disk looked up once a run.
func (r *Run) device(path string) string {
	st, ok := r.h.sys.devOf(path)
	if !ok {
		return ""
	}
	r.mu.Lock()
	disk, ok := r.devs[st]
	r.mu.Unlock()
	if ok {
		return disk
	}
	disk, _ = r.h.sys.diskOf(st)
	r.mu.Lock()
	r.devs[st] = disk
	r.mu.Unlock()
	return disk
}

// checkName refuses a group name that is not one plain folder name. Dots
// are refused too: a child named like an interface file ("memory.max")
// could not be made.
func checkName(name string) error {
	if name == "" || len(name) > 128 {
		return errcode.New(errcode.Internal, "cgroup name %q: 1 to 128 characters", name)
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return errcode.New(errcode.Internal, "cgroup name %q: only letters, digits, '-' and '_'", name)
		}
	}
	return nil
}
