package sandbox

import (
	"runtime"
	"slices"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Enforcement tiers, as murmur's --explain-scope names them. murmur-eval
// never builds the sealed tier's mount namespace.
const (
	TierLandlock = "landlock+seccomp+userns+netns"
	TierNone     = "none"
)

// Containment is what a capsule gets on this host: murmur's class
// (advisory < scoped < sealed), the floor it declared and whether it is met.
type Containment struct {
	Declared, Achieved capsule.Containment
	Tier               string
	FloorMet           bool
	Shortfall          string // why the floor is not met
}

func rank(c capsule.Containment) int {
	return slices.Index([]capsule.Containment{capsule.ContainmentAdvisory, capsule.ContainmentScoped, capsule.ContainmentSealed}, c)
}

// Classify computes the achieved class from the host probe (scoped when
// Landlock is really enforced, capped at advisory by workdir_exec; never
// sealed) and checks the declared floor, with murmur's reason precedence:
// workdir_exec, then scoped, then sealed.
func Classify(h Host, caps capsule.Capabilities) Containment {
	c := Containment{Declared: caps.Containment, Achieved: capsule.ContainmentAdvisory, Tier: TierNone}
	if c.Declared == "" {
		c.Declared = capsule.ContainmentAdvisory
	}
	if h.Landlock {
		c.Tier = TierLandlock
		c.Achieved = capsule.ContainmentScoped
	}
	if caps.Filesystem.WorkdirExec {
		c.Achieved = capsule.ContainmentAdvisory
	}
	c.FloorMet = rank(c.Achieved) >= rank(c.Declared)
	switch {
	case c.FloorMet:
	case caps.Filesystem.WorkdirExec:
		c.Shortfall = "capabilities.filesystem.workdir_exec is true, which lets the capsule execute files it writes and so caps containment at 'advisory'"
	case !h.Landlock:
		c.Shortfall = "requires Landlock filesystem mediation, which this host does not enforce (" + h.LandlockReason + ")"
	default:
		c.Shortfall = "murmur-eval does not build the private mount namespace (pivot_root onto a composed root) that 'sealed' requires"
		if runtime.GOOS != "linux" {
			c.Shortfall = "sealed needs Linux"
		}
	}
	return c
}

// Err is the E-CAP-003 refusal of an unmet floor, or nil.
func (c Containment) Err() error {
	if c.FloorMet {
		return nil
	}
	return errcode.New(errcode.CapContainment,
		"declared containment class '%s' is not achievable on this host (achieved: '%s'): %s", c.Declared, c.Achieved, c.Shortfall).
		WithHint("lower the declared floor to '%s' (capabilities.containment) or run on a host that provides '%s'", c.Achieved, c.Declared)
}
