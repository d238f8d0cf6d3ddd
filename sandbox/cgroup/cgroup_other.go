//go:build !linux

package cgroup

// cgroups are a Linux feature: elsewhere every entry point reports
// ErrUnavailable, and the types exist so callers build everywhere.

const notLinux = "cgroups are a Linux feature"

// Hierarchy is where this process may make cgroups; never one here.
type Hierarchy struct{}

// Run is one run's parent group; never one here.
type Run struct{}

// Group is one call's cgroup; never one here.
type Group struct{}

// Detect reports that there are no cgroups on this system.
func Detect() (*Hierarchy, error) { return nil, unavailable(notLinux) }

// OpenV2 reports that there are no cgroups on this system.
func OpenV2(mount, ownPath string) (*Hierarchy, error) { return nil, unavailable(notLinux) }

// OpenV1 reports that there are no cgroups on this system.
func OpenV1(mounts, own map[string]string) (*Hierarchy, error) { return nil, unavailable(notLinux) }

// Version is 0: no hierarchy.
func (h *Hierarchy) Version() int { return 0 }

// NewRun reports that there are no cgroups on this system.
func (h *Hierarchy) NewRun(name string) (*Run, error) { return nil, unavailable(notLinux) }

// NewGroup reports that there are no cgroups on this system.
func (r *Run) NewGroup(name string, l Limits) (*Group, error) { return nil, unavailable(notLinux) }

// Close does nothing.
func (r *Run) Close() error { return nil }

// Join reports that there are no cgroups on this system.
func (g *Group) Join(pid int) error { return unavailable(notLinux) }

// Procs lists nothing.
func (g *Group) Procs() ([]int, error) { return nil, nil }

// Killed names no limit.
func (g *Group) Killed() string { return "" }

// Close does nothing.
func (g *Group) Close() error { return nil }
