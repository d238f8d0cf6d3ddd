package sandbox

import "github.com/murmur-nexus/murmur-eval/sandbox/cgroup"

// RunCgroup makes a run's cgroup (SpawnerOptions.Cgroups), below which
// every subprocess call gets its own; cgroup names it for this process,
// so two runs never share one. The error says why there is none
// (W-SEC-010).
func RunCgroup() (*cgroup.Run, error) {
	h, err := cgroup.Detect()
	if err != nil {
		return nil, err
	}
	return h.NewRun("")
}
