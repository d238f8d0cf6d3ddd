package capsule

// Default WASM guest limits (§1.4). Hooks get DefaultHookDeadlineSeconds
// unless the manifest declares deadline_seconds.
const (
	DefaultMemoryBytes         = 536870912
	DefaultTableElements       = 100000
	DefaultInstances           = 1000
	DefaultDeadlineSeconds     = 600
	DefaultHookDeadlineSeconds = 30
)

// Limits is capabilities.limits, the WASM guest limits, with defaults applied.
type Limits struct {
	MemoryBytes     uint64
	TableElements   uint64
	Instances       uint64
	DeadlineSeconds uint64
	// DeadlineDeclared says deadline_seconds was written, which also
	// replaces the hooks' 30 s default.
	DeadlineDeclared bool
}

// Resources is capabilities.resources (§5.8): the bounds on native
// subprocesses (shell, spawn, native tools), with murmur's defaults applied.
type Resources struct {
	MaxProcesses        uint64 // RLIMIT_NPROC headroom
	MaxOpenFiles        uint64
	MaxFileSizeBytes    uint64
	CPUSeconds          uint64
	MemoryBytes         uint64 // RLIMIT_AS
	CgroupMemoryBytes   uint64
	CgroupPidsMax       uint64
	CgroupCPUPercent    uint32
	CgroupIOBytesPerSec uint64
	WorkdirMaxBytes     uint64
	// WorkdirMaxFiles bounds the entries the workdir guard may count in a
	// session (0: no bound). It is a murmur-eval extension, not a
	// murmur.yaml field: the manifest leaves it 0 and the Stage stage sets
	// it from --workdir-max-files (docs/sandbox.md, "Workdir guard").
	WorkdirMaxFiles uint64
}

// uintField is one integer field of a limits-like block: a declared 0 is
// refused ("must be greater than zero"), an absent one takes def.
type uintField struct {
	key  string
	def  uint64
	bits int
	typ  string // serde's name for the type, in shape errors
}

var limitFields = []uintField{ //nolint:gochecknoglobals // read-only table of murmur.yaml limit fields
	{"memory_bytes", DefaultMemoryBytes, 64, "usize"},
	{"table_elements", DefaultTableElements, 64, "usize"},
	{"instances", DefaultInstances, 64, "usize"},
	{"deadline_seconds", DefaultDeadlineSeconds, 64, "u64"},
}

var resourceFields = []uintField{ //nolint:gochecknoglobals // read-only table of murmur.yaml resource fields
	{"max_processes", 128, 64, "u64"},
	{"max_open_files", 1024, 64, "u64"},
	{"max_file_size_bytes", 4294967296, 64, "u64"},
	{"cpu_seconds", 3600, 64, "u64"},
	{"memory_bytes", 2147483648, 64, "u64"},
	{"cgroup_memory_bytes", 4294967296, 64, "u64"},
	{"cgroup_pids_max", 256, 64, "u64"},
	{"cgroup_cpu_percent", 200, 32, "u32"},
	{"cgroup_io_bytes_per_sec", 104857600, 64, "u64"},
	{"workdir_max_bytes", 10737418240, 64, "u64"},
}

func defaultLimits() Limits {
	var l Limits
	for i, t := range limitTargets(&l) {
		*t = limitFields[i].def
	}
	return l
}

func defaultResources() Resources {
	var r Resources
	var cpu uint64
	for i, t := range resourceTargets(&r, &cpu) {
		*t = resourceFields[i].def
	}
	r.CgroupCPUPercent = uint32(cpu)
	return r
}

func limitTargets(l *Limits) []*uint64 {
	return []*uint64{&l.MemoryBytes, &l.TableElements, &l.Instances, &l.DeadlineSeconds}
}

// resourceTargets returns where each resourceFields value goes; the u32
// cgroup_cpu_percent goes through cpu, which the caller copies back.
func resourceTargets(r *Resources, cpu *uint64) []*uint64 {
	return []*uint64{&r.MaxProcesses, &r.MaxOpenFiles, &r.MaxFileSizeBytes, &r.CPUSeconds,
		&r.MemoryBytes, &r.CgroupMemoryBytes, &r.CgroupPidsMax, cpu, &r.CgroupIOBytesPerSec, &r.WorkdirMaxBytes}
}

func decodeUints(errs *fieldErrs, m *mapping, fields []uintField) []optUint {
	out := make([]optUint, len(fields))
	for i, f := range fields {
		out[i] = errs.uint(m, f.key, f.bits, f.typ)
	}
	return out
}

// lowerUints copies each declared value of raw into its target, refusing a
// declared zero. raw is nil when the block is absent.
func lowerUints(d *decoder, r *rawCapabilities, prefix string, raw []optUint, fields []uintField, dst []*uint64) error {
	for i, v := range raw {
		if v.node == nil {
			continue
		}
		if v.val == 0 {
			return capInvalid(d, r, v.node, prefix+fields[i].key, "must be greater than zero")
		}
		*dst[i] = v.val
	}
	return nil
}
