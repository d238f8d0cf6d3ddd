package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// ProbeHost really builds and enforces a Landlock rule set on a throwaway
// thread, and really starts a child in new user, PID and network
// namespaces. It never reads version strings. It takes a few milliseconds.
func ProbeHost(ctx context.Context) Host {
	var h Host
	h.LandlockABI = landlockABI()
	if h.LandlockABI == 0 {
		h.LandlockReason = "the kernel offers no Landlock (landlock_create_ruleset failed)"
	} else if err := probeLandlock(h.LandlockABI); err != nil {
		h.LandlockReason = "Landlock is not enforced: " + err.Error()
	} else {
		h.Landlock = true
	}
	if err := probeNamespaces(ctx, false); err != nil {
		h.UserNSReason = "cannot create user and network namespaces: " + err.Error()
		h.EgressReason = h.UserNSReason
	} else {
		h.UserNS = true
		if err := probeNamespaces(ctx, true); err != nil {
			h.EgressReason = "a subprocess cannot hold CAP_NET_ADMIN in its own user namespace to set up its network for the egress proxy: " + err.Error()
		} else {
			h.Egress = true
		}
	}
	return h
}

// probeLandlock restricts a locked thread that is then thrown away (a
// goroutine that exits while locked takes its thread with it; Go starts new
// threads from a clean template thread, never from a locked one) and checks
// that a file outside the rule set can no longer be opened.
func probeLandlock(abi int) error {
	dir, err := os.MkdirTemp("", "murmur-eval-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	outside := filepath.Join(dir, "outside")
	inside := filepath.Join(dir, "inside")
	if err := os.WriteFile(outside, nil, 0o644); err != nil {
		return err
	}
	if err := os.Mkdir(inside, 0o755); err != nil {
		return err
	}
	res := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
		if err := noNewPrivs(); err != nil {
			res <- err
			return
		}
		if err := restrictThread(landlockSpec{ABI: abi, Rules: []LandlockRule{{Path: inside, Access: llReadFile | llReadDir}}}); err != nil {
			res <- err
			return
		}
		fd, err := unix.Open(outside, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err == nil {
			_ = unix.Close(fd)
			res <- errors.New("a file outside the rule set could still be opened")
			return
		}
		res <- nil
	}()
	return <-res
}

// probeNamespaces starts true(1) with the namespaces Spawner uses; with
// egress, holding the capabilities a proxied call's launcher holds.
func probeNamespaces(ctx context.Context, egress bool) error {
	bin, err := exec.LookPath("/usr/bin/true")
	if err != nil {
		if bin, err = exec.LookPath("/bin/true"); err != nil {
			return err
		}
	}
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = []string{}
	cmd.SysProcAttr = userNS(true)
	if egress {
		cmd.SysProcAttr.AmbientCaps = []uintptr{unix.CAP_NET_ADMIN, unix.CAP_NET_BIND_SERVICE}
	}
	return cmd.Run()
}

// userNS is the SysProcAttr of every subprocess: its own process group,
// killed if the evaluator dies, and new user, PID, IPC and UTS namespaces
// (plus a network namespace when isolate). The user namespace maps one unprivileged
// uid (nobody when the evaluator is root, else the evaluator's own uid), so
// RLIMIT_NPROC is enforced even for a root evaluator and counts only this
// subprocess tree; the PID namespace makes the tool PID 1, so killing it
// kills everything it forked.
func userNS(isolate bool) *syscall.SysProcAttr {
	uid, gid := subprocessUID(), os.Getgid()
	if os.Getuid() == 0 {
		gid = nobody
	}
	// Fresh IPC and UTS namespaces: System V shared memory, semaphores,
	// message queues and POSIX message queues a tool creates are private to
	// the call and gone when it ends; the host name cannot be changed for
	// anyone else.
	flags := uintptr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS)
	if isolate {
		flags |= syscall.CLONE_NEWNET
	}
	return &syscall.SysProcAttr{
		Setpgid:                    true,
		Pdeathsig:                  syscall.SIGKILL,
		Cloneflags:                 flags,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		GidMappingsEnableSetgroups: false,
		Credential:                 &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true},
	}
}
