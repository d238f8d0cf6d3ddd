//go:build linux

package workspace

import (
	"errors"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// MountNSEnv marks a process that EnterPrivateMountNS re-executed: its
// value is the id of the mount namespace it entered (the link text of
// /proc/thread-self/ns/mnt), which InPrivateMountNS compares with its own.
const MountNSEnv = "MURMUR_EVAL_MOUNTNS"

// EnterPrivateMountNS re-executes the running binary, same pid, with args
// (the whole argv) and env (plus MountNSEnv), in a mount namespace of its own whose
// mounts propagate nowhere: every overlay the run mounts then vanishes with
// the process, even one killed by SIGKILL, and the host's mount table never
// shows them. It returns only when it did not re-execute: not root, already
// re-executed (MountNSEnv set), or the kernel refused (a container without
// CAP_SYS_ADMIN); the run then goes on without overlays.
//
// Go's threads share one mount namespace only until one unshares: the work
// is done on a thread of its own, locked and never handed back, which
// replaces the whole process by execve once it is in the new namespace (the
// other threads end with the old image). If anything fails before execve,
// the goroutine ends locked and the runtime discards that thread.
func EnterPrivateMountNS(args, env []string) error {
	if os.Geteuid() != 0 {
		return errors.New("not root")
	}
	for _, kv := range env {
		if len(kv) > len(MountNSEnv) && kv[:len(MountNSEnv)+1] == MountNSEnv+"=" {
			return errors.New("already re-executed")
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: see above
		if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
			done <- err
			return
		}
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			done <- err
			return
		}
		id, err := os.Readlink("/proc/thread-self/ns/mnt")
		if err != nil {
			done <- err
			return
		}
		done <- syscall.Exec(exe, args, append(env, MountNSEnv+"="+id))
	}()
	return <-done
}

// InPrivateMountNS reports whether this process runs in the mount
// namespace EnterPrivateMountNS made for it: token is MountNSEnv's value.
func InPrivateMountNS(token string) bool {
	if token == "" {
		return false
	}
	id, err := os.Readlink("/proc/self/ns/mnt")
	return err == nil && id == token
}
