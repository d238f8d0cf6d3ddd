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

// Default WASM guest limits (§1.4). Hooks get DefaultHookDeadlineSeconds
// unless the manifest declares deadline_seconds.
const (
	DefaultMemoryBytes         = 536870912
	DefaultTableElements       = 100000
	DefaultInstances           = 1000
	DefaultDeadlineSeconds     = 600
	DefaultHookDeadlineSeconds = 30
)

// Capabilities is the manifest's capsule-wide capability ceiling (§1.4). The
// zero value of each sub-block means the block was absent, which murmur
// treats the same as an empty block. Network, spawn, resources and the shell's
// environment and runtime grants are not read yet.
type Capabilities struct {
	Containment Containment // "" when absent (advisory)
	Filesystem  Filesystem
	Env         Env
	Shell       Shell
	Limits      Limits
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

// Shell is capabilities.shell; a declared block has at least one binary.
type Shell struct {
	Allow []string
}

// Limits is capabilities.limits with defaults applied.
type Limits struct {
	MemoryBytes     uint64
	TableElements   uint64
	Instances       uint64
	DeadlineSeconds uint64
	// DeadlineDeclared says deadline_seconds was written, which also
	// replaces the hooks' 30 s default.
	DeadlineDeclared bool
}

type rawCapabilities struct {
	node                 *yaml.Node
	containment          scalar
	scope                scalar
	workdirExec          optBool
	envAllow, shellAllow []string
	shell                *yaml.Node // the shell block, nil when absent
	memoryBytes          optUint
	tableElements        optUint
	instances            optUint
	deadlineSeconds      optUint
}

func decodeCapabilities(m *mapping) (*rawCapabilities, error) {
	var errs fieldErrs
	r := &rawCapabilities{node: m.node}
	r.containment = errs.str(m, "containment")
	if fs, err := m.child("filesystem"); !errs.add(err) && fs != nil {
		r.scope = errs.str(fs, "scope")
		r.workdirExec = errs.boolean(fs, "workdir_exec")
	}
	if env, err := m.child("env"); !errs.add(err) && env != nil {
		r.envAllow = errs.strs(env, "allow")
	}
	if sh, err := m.child("shell"); !errs.add(err) && sh != nil {
		r.shell = sh.node
		r.shellAllow = errs.strs(sh, "allow")
	}
	if lim, err := m.child("limits"); !errs.add(err) && lim != nil {
		r.memoryBytes = errs.uint(lim, "memory_bytes", 64, "usize")
		r.tableElements = errs.uint(lim, "table_elements", 64, "usize")
		r.instances = errs.uint(lim, "instances", 64, "usize")
		r.deadlineSeconds = errs.uint(lim, "deadline_seconds", 64, "u64")
	}
	return r, errs.first
}

func lowerCapabilities(d *decoder, r *rawCapabilities) (Capabilities, error) {
	c := Capabilities{Limits: Limits{
		MemoryBytes:     DefaultMemoryBytes,
		TableElements:   DefaultTableElements,
		Instances:       DefaultInstances,
		DeadlineSeconds: DefaultDeadlineSeconds,
	}}
	if r == nil {
		return c, nil
	}
	invalid := func(n *yaml.Node, field, format string, args ...any) error {
		if n == nil {
			n = r.node
		}
		return errcode.New(errcode.ManifestInvalid, "invalid capability config for '%s': %s",
			field, fmt.Sprintf(format, args...)).At(d.where(n))
	}
	c.Filesystem = Filesystem{Scope: r.scope.trimmed(), WorkdirExec: r.workdirExec.val}
	c.Env.Allow = r.envAllow
	if r.shell != nil {
		if len(r.shellAllow) == 0 {
			return c, invalid(r.shell, "capabilities.shell.allow", "must contain at least one binary")
		}
		c.Shell.Allow = r.shellAllow
	}
	for _, lim := range []struct {
		raw   optUint
		field string
		dst   *uint64
	}{
		{r.memoryBytes, "memory_bytes", &c.Limits.MemoryBytes},
		{r.tableElements, "table_elements", &c.Limits.TableElements},
		{r.instances, "instances", &c.Limits.Instances},
		{r.deadlineSeconds, "deadline_seconds", &c.Limits.DeadlineSeconds},
	} {
		if lim.raw.node == nil {
			continue
		}
		if lim.raw.val == 0 {
			return c, invalid(lim.raw.node, "capabilities.limits."+lim.field, "must be greater than zero")
		}
		*lim.dst = lim.raw.val
	}
	c.Limits.DeadlineDeclared = r.deadlineSeconds.node != nil
	if v := r.containment.trimmed(); v != "" {
		switch cl := Containment(v); cl {
		case ContainmentAdvisory, ContainmentScoped, ContainmentSealed:
			c.Containment = cl
		default:
			return c, invalid(r.containment.node, "capabilities.containment", "must be one of: advisory, scoped, sealed; got '%s'", v)
		}
	}
	return c, nil
}
