package capsule

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Containment is a declared containment floor, weakest to strongest:
// advisory < scoped < sealed (§5.1).
type Containment string

// The containment classes.
const (
	ContainmentAdvisory Containment = "advisory"
	ContainmentScoped   Containment = "scoped"
	ContainmentSealed   Containment = "sealed"
)

// Capabilities is a capability block (§1.4): the manifest's capsule-wide
// ceiling, or one artifact's own grant (§5.7). Defaults are applied; the
// zero value of a sub-block means it was absent, which murmur treats like an
// empty block, except Network, whose absence and emptiness differ for
// per-artifact grants. Entry syntax (network allow entries, scope) is
// validated at staging (E-CAP-001/002), not here.
type Capabilities struct {
	Containment Containment   // "" when absent (advisory)
	Network     *NetworkGrant // nil when absent
	Filesystem  Filesystem
	Shell       Shell
	Spawn       Spawn
	Env         Env
	Limits      Limits
	Resources   Resources
	// Declared names the sub-blocks the manifest wrote, in the order
	// network, filesystem, shell, spawn, env, limits, resources, containment:
	// per-artifact grants use it to tell an inherited ceiling from a declared
	// block, and inert blocks from enforced ones (W-SEC-006, W-SEC-008).
	Declared []string
}

// NetworkGrant is capabilities.network: the IP destinations guests and the
// shell may reach. A declared block with an empty Allow reaches nothing.
type NetworkGrant struct {
	Allow       []string // entries verbatim; syntax checked at staging
	UnixSockets bool     // AF_UNIX for the shell's subprocess tree
}

// Filesystem is capabilities.filesystem.
type Filesystem struct {
	Scope       string // trimmed; "" when absent. Validated at staging (E-CAP-002).
	WorkdirExec bool
}

// Env is capabilities.env: host variable names WASM guests may see.
type Env struct {
	Allow []string
}

// Spawn is capabilities.spawn: binaries a component may spawn natively.
type Spawn struct {
	Allow []string
}

type rawCapabilities struct {
	node        *yaml.Node
	declared    []string
	containment scalar
	network     *rawNetwork
	scope       scalar
	workdirExec optBool
	envAllow    []string
	spawnAllow  []string
	shell       *rawShell
	limits      []optUint // in limitFields order; nil when the block is absent
	resources   []optUint // in resourceFields order; nil when the block is absent
}

type rawNetwork struct {
	allow       []string
	unixSockets optBool
}

func decodeCapabilities(m *mapping) (*rawCapabilities, error) {
	var errs fieldErrs
	r := &rawCapabilities{node: m.node}
	declare := func(c *mapping, name string) *mapping {
		if c != nil {
			r.declared = append(r.declared, name)
		}
		return c
	}
	if n := declare(errs.child(m, "network"), "network"); n != nil {
		r.network = &rawNetwork{allow: errs.strs(n, "allow"), unixSockets: errs.boolean(n, "unix_sockets")}
	}
	if fs := declare(errs.child(m, "filesystem"), "filesystem"); fs != nil {
		r.scope = errs.str(fs, "scope")
		r.workdirExec = errs.boolean(fs, "workdir_exec")
	}
	if sh := declare(errs.child(m, "shell"), "shell"); sh != nil && errs.first == nil {
		r.shell, errs.first = decodeShell(sh)
	}
	if sp := declare(errs.child(m, "spawn"), "spawn"); sp != nil {
		r.spawnAllow = errs.strs(sp, "allow")
	}
	if env := declare(errs.child(m, "env"), "env"); env != nil {
		r.envAllow = errs.strs(env, "allow")
	}
	if lim := declare(errs.child(m, "limits"), "limits"); lim != nil {
		r.limits = decodeUints(&errs, lim, limitFields)
	}
	if res := declare(errs.child(m, "resources"), "resources"); res != nil {
		r.resources = decodeUints(&errs, res, resourceFields)
	}
	r.containment = errs.str(m, "containment")
	if !r.containment.blank() {
		r.declared = append(r.declared, "containment")
	}
	return r, errs.first
}

// capInvalid returns the E-MAN-003 "invalid capability config" error for
// field, positioned at n (or at the block when n is nil).
func capInvalid(d *decoder, r *rawCapabilities, n *yaml.Node, field, format string, args ...any) error {
	if n == nil {
		n = r.node
	}
	return errcode.New(errcode.ManifestInvalid, "invalid capability config for '%s': %s",
		field, fmt.Sprintf(format, args...)).At(d.where(n))
}

// lowerCapabilities validates a capability block and applies murmur's
// defaults, in murmur's order: shell, limits, resources, containment. A nil
// block gives the defaults.
func lowerCapabilities(d *decoder, r *rawCapabilities) (Capabilities, error) {
	c := Capabilities{Limits: defaultLimits(), Resources: defaultResources()}
	if r == nil {
		return c, nil
	}
	c.Declared = r.declared
	if r.network != nil {
		c.Network = &NetworkGrant{Allow: r.network.allow, UnixSockets: r.network.unixSockets.val}
		if c.Network.Allow == nil {
			c.Network.Allow = []string{}
		}
	}
	c.Filesystem = Filesystem{Scope: r.scope.trimmed(), WorkdirExec: r.workdirExec.val}
	var err error
	if r.shell != nil {
		if c.Shell, err = lowerShell(d, r, r.shell); err != nil {
			return c, err
		}
	}
	c.Spawn.Allow = r.spawnAllow
	c.Env.Allow = r.envAllow
	if err := lowerUints(d, r, "capabilities.limits.", r.limits, limitFields, limitTargets(&c.Limits)); err != nil {
		return c, err
	}
	c.Limits.DeadlineDeclared = r.limits != nil && r.limits[3].node != nil
	cpu := uint64(c.Resources.CgroupCPUPercent)
	if err := lowerUints(d, r, "capabilities.resources.", r.resources, resourceFields, resourceTargets(&c.Resources, &cpu)); err != nil {
		return c, err
	}
	c.Resources.CgroupCPUPercent = uint32(cpu)
	if v := r.containment.trimmed(); v != "" {
		switch cl := Containment(v); cl {
		case ContainmentAdvisory, ContainmentScoped, ContainmentSealed:
			c.Containment = cl
		default:
			return c, capInvalid(d, r, r.containment.node, "capabilities.containment", "must be one of: advisory, scoped, sealed; got '%s'", v)
		}
	}
	return c, nil
}
