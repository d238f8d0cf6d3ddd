package sandbox

import (
	"fmt"
	"unsafe"

	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The seccomp filter every shell, native and check subprocess runs under,
// installed by the launcher as its last step before execve (murmur-formats.md
// §5.3: seccomp on every Linux tier, default EPERM, an OCI-like allowlist).
//
// The allowlist is Docker's default profile, github.com/moby/profiles/seccomp
// v0.3.0 (default.json): its unconditional ALLOW group, written out below by
// hand, minus the calls handled with argument conditions further down
// (socket, clone, clone3, personality, the chmod family, creat, open,
// openat, openat2, mknod, mknodat). Docker's capability-gated groups
// (mount, umount2, unshare, setns, bpf, perf_event_open, ptrace,
// process_vm_*, kcmp, pidfd_getfd, init_module, kexec_*, syslog, ...) are
// left out, as are io_uring_*, keyctl, add_key and request_key, which the
// profile never allows; everything not listed fails with EPERM. Names a
// kernel architecture lacks (the 32-bit variants, arch_prctl on arm64) are
// dropped when the filter is built, so one list serves x86_64 and arm64.
func dockerAllow() []string {
	return []string{
		"accept", "accept4", "access", "adjtimex", "alarm", "bind", "brk", "cachestat", "capget", "capset",
		"chdir", "chown", "chown32", "clock_adjtime", "clock_adjtime64", "clock_getres",
		"clock_getres_time64", "clock_gettime", "clock_gettime64", "clock_nanosleep",
		"clock_nanosleep_time64", "close", "close_range", "connect", "copy_file_range", "dup", "dup2",
		"dup3", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_ctl_old", "epoll_pwait", "epoll_pwait2",
		"epoll_wait", "epoll_wait_old", "eventfd", "eventfd2", "execve", "execveat", "exit", "exit_group",
		"faccessat", "faccessat2", "fadvise64", "fadvise64_64", "fallocate", "fanotify_mark", "fchdir",
		"fchown", "fchown32", "fchownat", "fcntl", "fcntl64", "fdatasync", "fgetxattr", "flistxattr", "flock",
		"fork", "fremovexattr", "fsetxattr", "fstat", "fstat64", "fstatat64", "fstatfs", "fstatfs64", "fsync",
		"ftruncate", "ftruncate64", "futex", "futex_requeue", "futex_time64", "futex_wait", "futex_waitv",
		"futex_wake", "futimesat", "getcpu", "getcwd", "getdents", "getdents64", "getegid", "getegid32",
		"geteuid", "geteuid32", "getgid", "getgid32", "getgroups", "getgroups32", "getitimer", "getpeername",
		"getpgid", "getpgrp", "getpid", "getppid", "getpriority", "getrandom", "getresgid", "getresgid32",
		"getresuid", "getresuid32", "getrlimit", "get_robust_list", "getrusage", "getsid", "getsockname",
		"getsockopt", "get_thread_area", "gettid", "gettimeofday", "getuid", "getuid32", "getxattr",
		"getxattrat", "inotify_add_watch", "inotify_init", "inotify_init1", "inotify_rm_watch", "io_cancel",
		"ioctl", "io_destroy", "io_getevents", "io_pgetevents", "io_pgetevents_time64", "ioprio_get",
		"ioprio_set", "io_setup", "io_submit", "ipc", "kill", "landlock_add_rule", "landlock_create_ruleset",
		"landlock_restrict_self", "lchown", "lchown32", "lgetxattr", "link", "linkat", "listen", "listmount",
		"listxattr", "listxattrat", "llistxattr", "_llseek", "lremovexattr", "lseek", "lsetxattr", "lstat",
		"lstat64", "madvise", "map_shadow_stack", "membarrier", "memfd_create", "memfd_secret", "mincore",
		"mkdir", "mkdirat", "mlock", "mlock2", "mlockall", "mmap", "mmap2", "mprotect", "mq_getsetattr",
		"mq_notify", "mq_open", "mq_timedreceive", "mq_timedreceive_time64", "mq_timedsend",
		"mq_timedsend_time64", "mq_unlink", "mremap", "mseal", "msgctl", "msgget", "msgrcv", "msgsnd", "msync",
		"munlock", "munlockall", "munmap", "name_to_handle_at", "nanosleep", "newfstatat", "_newselect",
		"pause", "pidfd_open", "pidfd_send_signal", "pipe", "pipe2", "pkey_alloc", "pkey_free",
		"pkey_mprotect", "poll", "ppoll", "ppoll_time64", "prctl", "pread64", "preadv", "preadv2", "prlimit64",
		"process_mrelease", "pselect6", "pselect6_time64", "pwrite64", "pwritev", "pwritev2", "read",
		"readahead", "readlink", "readlinkat", "readv", "recv", "recvfrom", "recvmmsg", "recvmmsg_time64",
		"recvmsg", "remap_file_pages", "removexattr", "removexattrat", "rename", "renameat", "renameat2",
		"restart_syscall", "riscv_hwprobe", "rmdir", "rseq", "rt_sigaction", "rt_sigpending",
		"rt_sigprocmask", "rt_sigqueueinfo", "rt_sigreturn", "rt_sigsuspend", "rt_sigtimedwait",
		"rt_sigtimedwait_time64", "rt_tgsigqueueinfo", "sched_getaffinity", "sched_getattr",
		"sched_getparam", "sched_get_priority_max", "sched_get_priority_min", "sched_getscheduler",
		"sched_rr_get_interval", "sched_rr_get_interval_time64", "sched_setaffinity", "sched_setattr",
		"sched_setparam", "sched_setscheduler", "sched_yield", "seccomp", "select", "semctl", "semget",
		"semop", "semtimedop", "semtimedop_time64", "send", "sendfile", "sendfile64", "sendmmsg", "sendmsg",
		"sendto", "setfsgid", "setfsgid32", "setfsuid", "setfsuid32", "setgid", "setgid32", "setgroups",
		"setgroups32", "setitimer", "setpgid", "setpriority", "setregid", "setregid32", "setresgid",
		"setresgid32", "setresuid", "setresuid32", "setreuid", "setreuid32", "setrlimit", "set_robust_list",
		"setsid", "setsockopt", "set_thread_area", "set_tid_address", "setuid", "setuid32", "setxattr",
		"setxattrat", "shmat", "shmctl", "shmdt", "shmget", "shutdown", "sigaltstack", "signalfd",
		"signalfd4", "sigprocmask", "sigreturn", "socketpair", "splice", "stat", "stat64", "statfs",
		"statfs64", "statmount", "statx", "symlink", "symlinkat", "sync", "sync_file_range", "syncfs",
		"sysinfo", "tee", "tgkill", "time", "timer_create", "timer_delete", "timer_getoverrun",
		"timer_gettime", "timer_gettime64", "timer_settime", "timer_settime64", "timerfd_create",
		"timerfd_gettime", "timerfd_gettime64", "timerfd_settime", "timerfd_settime64", "times", "tkill",
		"truncate", "truncate64", "ugetrlimit", "umask", "uname", "unlink", "unlinkat", "uretprobe", "utime",
		"utimensat", "utimensat_time64", "utimes", "vfork", "vmsplice", "wait4", "waitid", "waitpid",
		"write", "writev",
		// Docker's per-architecture groups for amd64 and arm64.
		"arch_prctl", "modify_ldt", "arm_fadvise64_64", "arm_sync_file_range", "sync_file_range2",
		"breakpoint", "cacheflush", "set_tls",
	}
}

// Constants the conditions compare with.
const (
	// Any of the namespace flags in clone's flags (Docker's mask
	// 0x7E020000): a new namespace is how a tool would gain capabilities.
	cloneNamespaceFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
		unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET
	setIDBits = unix.S_ISUID | unix.S_ISGID
	oTmpfile  = 0o20000000 // __O_TMPFILE, the bit O_TMPFILE adds to O_DIRECTORY

	retAllow = unix.SECCOMP_RET_ALLOW
	retEPERM = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
)

func retErrno(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }

// seccompSpec is the part of the filter that varies between calls.
type seccompSpec struct {
	// UnixSockets lets socket() create AF_UNIX sockets
	// (capabilities.network.unix_sockets).
	UnixSockets bool `json:"unix_sockets"`
}

// A seccompRule decides one system call: the first case whose conditions
// all hold gives the action, else the fallback.
type seccompRule struct {
	name     string
	cases    []seccompCase
	fallback uint32
}

type seccompCase struct {
	conds  []argCond
	action uint32
}

// argCond tests the low 32 bits of argument arg: equal to val, or with any
// of val's bits set. Every argument tested is an int, unsigned int or
// mode_t to the kernel (clone's flags keep their namespace bits there
// too), so the high half, which the kernel ignores, is ignored here.
type argCond struct {
	arg     int
	bitsSet bool
	val     uint32
}

// seccompRules is the whole policy for spec: Docker's list allowed, and
// the calls decided by their arguments.
func seccompRules(spec seccompSpec) []seccompRule {
	var rules []seccompRule
	for _, n := range dockerAllow() {
		rules = append(rules, seccompRule{name: n, fallback: retAllow})
	}
	denySetID := func(name string, mode int) seccompRule {
		return seccompRule{name: name, fallback: retAllow,
			cases: []seccompCase{{conds: []argCond{{mode, true, setIDBits}}, action: retEPERM}}}
	}
	// Set-user-ID and set-group-ID bits can never be set: every call that
	// sets a mode is refused when the mode has them (open's mode counts
	// only with O_CREAT or O_TMPFILE).
	rules = append(rules, denySetID("chmod", 1), denySetID("fchmod", 1), denySetID("fchmodat", 2),
		denySetID("fchmodat2", 2), denySetID("creat", 1), denySetID("mknod", 1), denySetID("mknodat", 2))
	for _, o := range []struct {
		name        string
		flags, mode int
	}{{"open", 1, 2}, {"openat", 2, 3}} {
		rules = append(rules, seccompRule{name: o.name, fallback: retAllow, cases: []seccompCase{
			{conds: []argCond{{o.flags, true, unix.O_CREAT}, {o.mode, true, setIDBits}}, action: retEPERM},
			{conds: []argCond{{o.flags, true, oTmpfile}, {o.mode, true, setIDBits}}, action: retEPERM},
		}})
	}
	// socket(): AF_INET and AF_INET6 (a network namespace, or W-SEC-003,
	// decides where they lead), AF_UNIX only with unix_sockets, AF_NETLINK
	// and AF_PACKET EACCES, any other family EPERM (murmur's rule).
	sock := seccompRule{name: "socket", fallback: retEPERM, cases: []seccompCase{
		{conds: []argCond{{0, false, unix.AF_INET}}, action: retAllow},
		{conds: []argCond{{0, false, unix.AF_INET6}}, action: retAllow},
		{conds: []argCond{{0, false, unix.AF_NETLINK}}, action: retErrno(unix.EACCES)},
		{conds: []argCond{{0, false, unix.AF_PACKET}}, action: retErrno(unix.EACCES)},
	}}
	if spec.UnixSockets {
		sock.cases = append(sock.cases, seccompCase{conds: []argCond{{0, false, unix.AF_UNIX}}, action: retAllow})
	}
	rules = append(rules, sock,
		// clone without namespace flags; clone3 (whose flags are in memory
		// the filter cannot read) and openat2 (whose mode is) report
		// ENOSYS so libc falls back to clone and openat.
		seccompRule{name: "clone", fallback: retAllow,
			cases: []seccompCase{{conds: []argCond{{0, true, cloneNamespaceFlags}}, action: retEPERM}}},
		seccompRule{name: "clone3", fallback: retErrno(unix.ENOSYS)},
		seccompRule{name: "openat2", fallback: retErrno(unix.ENOSYS)},
	)
	// personality: Docker's five harmless values.
	pers := seccompRule{name: "personality", fallback: retEPERM}
	for _, v := range []uint32{0, 8, 0x20000, 0x20008, 0xffffffff} {
		pers.cases = append(pers.cases, seccompCase{conds: []argCond{{0, false, v}}, action: retAllow})
	}
	return append(rules, pers)
}

// seccomp_data offsets (include/uapi/linux/seccomp.h): nr, arch, then
// instruction_pointer and the six 64-bit arguments from offset 16.
const (
	offNr   = 0
	offArch = 4
)

func argLoOffset(arg int) uint32 {
	off := uint32(16 + 8*arg)
	if bigEndian() {
		off += 4
	}
	return off
}

func bigEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 0
}

// seccompAssemble turns rules into a classic BPF program for the
// architecture info, with murmur's default (EPERM). Names the architecture
// lacks are dropped. go-seccomp-bpf provides the architecture's system call
// table and audit number; the program is assembled here because its own
// assembler, when an argument condition fails, goes on comparing system
// call numbers against the argument it loaded (v1.6.0: the number is never
// reloaded), which could let a crafted argument match another call's
// allow rule (RATIONALE.md). Every block that loads an argument starts by
// reloading the number, and the calls allowed outright are checked first,
// before any argument is loaded.
func seccompAssemble(info *arch.Info, rules []seccompRule) ([]bpf.Instruction, error) {
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1},
		bpf.RetConstant{Val: retEPERM}, // another ABI (i386 on x86_64): nothing allowed
		bpf.LoadAbsolute{Off: offNr, Size: 4},
	}
	if info.ID == arch.X86_64.ID {
		// x32 system calls share x86_64's audit number: refuse them all.
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: uint32(arch.X32.SeccompMask), SkipFalse: 1},
			bpf.RetConstant{Val: retErrno(unix.ENOSYS)})
	}
	seen := map[int]bool{}
	var conditional []seccompRule
	for _, r := range rules {
		nr, ok := info.SyscallNames[r.name]
		if !ok {
			continue
		}
		if seen[nr] {
			return nil, fmt.Errorf("seccomp rule for %s given twice", r.name)
		}
		seen[nr] = true
		if len(r.cases) > 0 {
			conditional = append(conditional, r)
			continue
		}
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(nr), SkipFalse: 1}, bpf.RetConstant{Val: r.fallback})
	}
	for _, r := range conditional {
		var block []bpf.Instruction
		for _, c := range r.cases {
			// Each condition jumps past the rest of this case on failure.
			n := 2*len(c.conds) + 1
			for i, cond := range c.conds {
				skip := uint8(n - 2*i - 2) // to the next case
				block = append(block, bpf.LoadAbsolute{Off: argLoOffset(cond.arg), Size: 4})
				if cond.bitsSet {
					block = append(block, bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: cond.val, SkipFalse: skip})
				} else {
					block = append(block, bpf.JumpIf{Cond: bpf.JumpEqual, Val: cond.val, SkipFalse: skip})
				}
			}
			block = append(block, bpf.RetConstant{Val: c.action})
		}
		block = append(block, bpf.RetConstant{Val: r.fallback})
		if len(block) > 255 {
			return nil, fmt.Errorf("seccomp rule for %s is too long", r.name)
		}
		prog = append(prog, bpf.LoadAbsolute{Off: offNr, Size: 4},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.SyscallNames[r.name]), SkipFalse: uint8(len(block))})
		prog = append(prog, block...)
	}
	return append(prog, bpf.RetConstant{Val: retEPERM}), nil
}

// seccompProgram assembles the filter for the running architecture. The
// launcher builds it before setting rlimits (RLIMIT_AS could stop the
// allocations) and loads it last, right before execve.
func seccompProgram(spec seccompSpec) ([]unix.SockFilter, error) {
	info, err := arch.GetInfo("")
	if err != nil {
		return nil, fmt.Errorf("build the seccomp filter: %w", err)
	}
	insts, err := seccompAssemble(info, seccompRules(spec))
	if err != nil {
		return nil, fmt.Errorf("build the seccomp filter: %w", err)
	}
	raw, err := bpf.Assemble(insts)
	if err != nil {
		return nil, fmt.Errorf("build the seccomp filter: %w", err)
	}
	prog := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		prog[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return prog, nil
}

// loadSeccomp installs prog on the calling thread, which must hold
// no_new_privs; execve keeps it, and every process the tool starts
// inherits it. Other threads of the launcher are not filtered: execve ends
// them.
func loadSeccomp(prog []unix.SockFilter) error {
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if _, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog))); errno != 0 {
		return fmt.Errorf("install the seccomp filter: %w", errno)
	}
	return nil
}
