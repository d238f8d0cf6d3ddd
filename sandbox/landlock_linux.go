package sandbox

import (
	"fmt"
	"unsafe"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"golang.org/x/sys/unix"
)

// Landlock through raw system calls: the rule set is small, and the calls
// must run on the one OS thread that then execs (Landlock and no_new_privs
// are per-thread attributes), which libraries that restrict every thread of
// the process do not allow.

// File-system access rights by the Landlock ABI that introduced them.
const (
	llExecute    = unix.LANDLOCK_ACCESS_FS_EXECUTE
	llWriteFile  = unix.LANDLOCK_ACCESS_FS_WRITE_FILE
	llReadFile   = unix.LANDLOCK_ACCESS_FS_READ_FILE
	llReadDir    = unix.LANDLOCK_ACCESS_FS_READ_DIR
	llMakeChar   = unix.LANDLOCK_ACCESS_FS_MAKE_CHAR
	llMakeSock   = unix.LANDLOCK_ACCESS_FS_MAKE_SOCK
	llMakeBlock  = unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK
	llTruncate   = unix.LANDLOCK_ACCESS_FS_TRUNCATE
	llABI1       = 1<<13 - 1 // EXECUTE .. MAKE_SYM
	llFileRights = llExecute | llWriteFile | llReadFile | llTruncate | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	llNetConnect = unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	llNetBind    = unix.LANDLOCK_ACCESS_NET_BIND_TCP

	llScopeAbstractUnix = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
	llScopeSignal       = unix.LANDLOCK_SCOPE_SIGNAL
)

// landlockABI asks the kernel which Landlock ABI it offers; 0 means none.
// This is a system call, not a version string; ProbeHost still enforces a
// rule set before trusting it.
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// handledFS is every file-system right the ABI knows: anything not granted
// by a rule is then denied.
func handledFS(abi int) uint64 {
	h := uint64(llABI1)
	if abi >= 2 {
		h |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		h |= llTruncate
	}
	if abi >= 5 {
		h |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return h
}

// LandlockRule grants Access beneath Path (a directory) or on it (a file).
type LandlockRule struct {
	Path   string `json:"path"`
	Access uint64 `json:"access"`
}

// landlockSpec is a whole rule set as the launcher receives it.
type landlockSpec struct {
	ABI   int            `json:"abi"`
	Rules []LandlockRule `json:"rules"`
	// DenyTCP handles TCP connect and bind (ABI 4) with no rule granting
	// them, on top of the network namespace.
	DenyTCP bool `json:"deny_tcp"`
	// Scoped (ABI 6) keeps the subprocess tree from connecting to abstract
	// unix sockets and signalling processes created outside it.
	Scoped bool `json:"scoped"`
}

type rulesetAttr struct{ fs, net, scoped uint64 }

type pathBeneath struct {
	access uint64
	fd     int32
} // the kernel reads 12 packed bytes; the padding after fd is ignored

// restrictThread applies spec to the calling OS thread, which must be
// locked (runtime.LockOSThread) and must set no_new_privs first. Missing
// paths are skipped: a host without /lib32 is not an error.
func restrictThread(spec landlockSpec) error {
	handled := handledFS(spec.ABI)
	attr := rulesetAttr{fs: handled}
	size := unsafe.Sizeof(attr.fs)
	if spec.DenyTCP && spec.ABI >= 4 {
		attr.net, size = llNetConnect|llNetBind, 2*unsafe.Sizeof(attr.fs)
	}
	if spec.Scoped && spec.ABI >= 6 {
		attr.scoped, size = llScopeAbstractUnix|llScopeSignal, unsafe.Sizeof(attr)
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	for _, r := range spec.Rules {
		pfd, err := unix.Open(r.Path, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		var st unix.Stat_t
		access := r.Access & handled
		if unix.Fstat(pfd, &st) == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
			access &= llFileRights
		}
		pb := pathBeneath{access: access, fd: int32(pfd)}
		_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd, unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&pb)), 0, 0, 0)
		_ = unix.Close(pfd)
		if errno != 0 {
			return fmt.Errorf("landlock_add_rule %s: %w", r.Path, errno)
		}
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

// noNewPrivs sets no_new_privs on the calling thread.
func noNewPrivs() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	return nil
}

// systemDirs are the host folders a subprocess may read (not execute:
// what may run is the exec closure's business).
func systemDirs() []string {
	return []string{"/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"}
}

// SessionRules is the base rule set of a subprocess in a session: the
// session dir read-write (without execute unless workdirExec, never device
// or socket nodes), the system binary and library folders read-only (the
// dynamic loader maps libraries with plain reads), the loader's cache and
// murmur's fixed devices. What may be executed is added by execRules.
// Nothing else of the host is visible.
func SessionRules(sessionDir string, workdirExec bool) []LandlockRule {
	rw := uint64(1<<16-1) &^ (llMakeChar | llMakeBlock | llMakeSock)
	if !workdirExec {
		rw &^= llExecute
	}
	rules := []LandlockRule{{Path: sessionDir, Access: rw}}
	for _, d := range systemDirs() {
		rules = append(rules, LandlockRule{Path: d, Access: llReadFile | llReadDir})
	}
	return append(rules,
		LandlockRule{Path: "/etc/ld.so.cache", Access: llReadFile},
		LandlockRule{Path: "/dev/null", Access: llReadFile | llWriteFile | llTruncate},
		LandlockRule{Path: "/dev/zero", Access: llReadFile},
		LandlockRule{Path: "/dev/urandom", Access: llReadFile},
	)
}

// execRules grants a closure: read and execute on the files the kernel
// executes, read on the libraries.
func execRules(c closure) []LandlockRule {
	rules := make([]LandlockRule, 0, len(c.Exec)+len(c.Read))
	for _, f := range c.Exec {
		rules = append(rules, LandlockRule{Path: f, Access: llReadFile | llExecute})
	}
	for _, f := range c.Read {
		rules = append(rules, LandlockRule{Path: f, Access: llReadFile})
	}
	return rules
}

// runtimeRules are capabilities.shell.interpreter_runtime grants as murmur
// applies them: read and execute beneath each folder, and listing when
// list_dir. Landlock's domain covers the whole subprocess tree, so a grant
// named for one binary serves every process of the call.
func runtimeRules(grants []capsule.InterpreterGrant) []LandlockRule {
	var rules []LandlockRule
	for _, g := range grants {
		for _, d := range g.Dirs {
			access := uint64(llReadFile | llExecute)
			if d.ListDir {
				access |= llReadDir
			}
			rules = append(rules, LandlockRule{Path: d.Path, Access: access})
		}
	}
	return rules
}
