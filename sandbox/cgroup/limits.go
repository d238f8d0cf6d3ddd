package cgroup

import "errors"

// Limits are one call's aggregate bounds. A zero field is not set: the
// kernel's default (no limit) stays. murmur-eval's manifests never give a
// zero (capsule refuses a declared 0 and fills in murmur's defaults), so
// zero only means "the caller has no value".
type Limits struct {
	MemoryBytes   uint64 // memory.max; v1 memory.limit_in_bytes (and memsw)
	PidsMax       uint64 // pids.max
	CPUPercent    uint32 // cpu.max "<percent*1000> 100000"; v1 cfs quota/period
	IOBytesPerSec uint64 // io.max rbps and wbps; v1 blkio.throttle.*_bps_device
	// IODevice is a path on the device to throttle ("" for none). The
	// throttle is best effort: a path on a device that is not a block
	// device (tmpfs, overlayfs, btrfs) gets none, quietly, as in murmur.
	IODevice string
}

// The limit names Killed reports, murmur's resource_limit values.
const (
	KilledMemory = "cgroup_memory_bytes"
	KilledPids   = "cgroup_pids_max"
)

// ErrUnavailable is what every error saying this host gives murmur-eval no
// usable cgroup wraps (errors.Is); its text says why and becomes
// W-SEC-010's reason.
var ErrUnavailable = errors.New("no usable cgroup")

// unavailableError is an ErrUnavailable with its reason.
type unavailableError struct{ reason string }

func (e *unavailableError) Error() string        { return e.reason }
func (e *unavailableError) Is(target error) bool { return target == ErrUnavailable }

func unavailable(reason string) error { return &unavailableError{reason: reason} }

// cpuPeriodUs is the CFS period murmur's cpu.max uses: the kernel's
// default, 100 ms; the quota is the percent of it times the CPUs.
const cpuPeriodUs = 100000

// pidsLimitMax is the kernel's PIDS_MAX (PID_MAX_LIMIT + 1): pids.max
// refuses this and anything larger with EINVAL, so such a limit is written
// as "max", which is what it means.
const pidsLimitMax = 4*1024*1024 + 1

// pidsValue is what pids.max gets for n (n > 0).
func pidsValue(n uint64) string {
	if n >= pidsLimitMax {
		return "max"
	}
	return uitoa(n)
}

// cpuQuota is the CFS quota in microseconds for percent of one CPU.
func cpuQuota(percent uint32) uint64 { return uint64(percent) * (cpuPeriodUs / 100) }

// attribution is the limit the counters' growth since the group was made
// names: a kill by the group's OOM killer first (it ends a process), then
// a refused fork.
func attribution(oomKills, forkRefusals uint64) string {
	switch {
	case oomKills > 0:
		return KilledMemory
	case forkRefusals > 0:
		return KilledPids
	}
	return ""
}

func uitoa(n uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}
