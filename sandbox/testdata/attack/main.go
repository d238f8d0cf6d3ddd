// Command attack tries one escape from inside the subprocess sandbox and
// prints "ALLOWED" when the kernel let it happen, or "DENIED <errno name>"
// when it refused. The sandbox tests run it as a tool (a static binary, so
// its exec closure is itself).
//
//	attack ptrace | unshare | mount | keyctl | add_key | io_uring_setup | bpf | perf_event_open
//	attack clone-newuser
//	attack connect-unix PATH | connect-abstract NAME | socketpair
//	attack shmget-create KEY | shmget-find KEY
//	attack chmod-suid FILE | open-suid FILE | mknod-suid FILE | chmod-plain FILE
//	attack memfd-exec ELF | exec PATH
//	attack sethostname NAME
//	attack link SOURCE (hard link SOURCE as ./linked)
package main

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Println("usage: attack ACTION [ARG]")
		os.Exit(2)
	}
	arg := ""
	if len(os.Args) > 2 {
		arg = os.Args[2]
	}
	report(run(os.Args[1], arg))
}

func report(err error) {
	if err == nil {
		fmt.Println("ALLOWED")
		return
	}
	if errno, ok := err.(syscall.Errno); ok {
		fmt.Println("DENIED", unix.ErrnoName(errno))
		return
	}
	fmt.Println("DENIED", err)
}

func raw(trap uintptr, a ...uintptr) error {
	var args [6]uintptr
	copy(args[:], a)
	_, _, errno := unix.Syscall6(trap, args[0], args[1], args[2], args[3], args[4], args[5])
	if errno != 0 {
		return errno
	}
	return nil
}

func run(action, arg string) error {
	switch action {
	case "ptrace":
		return raw(unix.SYS_PTRACE, unix.PTRACE_TRACEME)
	case "unshare":
		return unix.Unshare(unix.CLONE_NEWUSER)
	case "clone-newuser":
		// fork-like clone with a new user namespace; the child exits at once.
		r, _, errno := unix.RawSyscall6(unix.SYS_CLONE, uintptr(unix.CLONE_NEWUSER|int(unix.SIGCHLD)), 0, 0, 0, 0, 0)
		if errno != 0 {
			return errno
		}
		if r == 0 {
			unix.RawSyscall(unix.SYS_EXIT_GROUP, 0, 0, 0)
		}
		return nil
	case "mount":
		return unix.Mount("none", "/tmp", "tmpfs", 0, "")
	case "keyctl":
		_, err := unix.KeyctlInt(unix.KEYCTL_GET_KEYRING_ID, unix.KEY_SPEC_SESSION_KEYRING, 1, 0, 0)
		return err
	case "add_key":
		_, err := unix.AddKey("user", "murmur", []byte("x"), unix.KEY_SPEC_PROCESS_KEYRING)
		return err
	case "io_uring_setup":
		var params [120]byte
		fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
		if errno != 0 {
			return errno
		}
		unix.Close(int(fd))
		return nil
	case "bpf":
		// BPF_MAP_CREATE with an empty attribute: EINVAL when the call
		// itself is permitted.
		var attr [128]byte
		return raw(unix.SYS_BPF, 0, uintptr(unsafe.Pointer(&attr[0])), uintptr(len(attr)))
	case "perf_event_open":
		var attr unix.PerfEventAttr
		attr.Size = uint32(unsafe.Sizeof(attr))
		attr.Type = unix.PERF_TYPE_SOFTWARE
		fd, err := unix.PerfEventOpen(&attr, 0, -1, -1, 0)
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "connect-unix", "connect-abstract":
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		name := arg
		if action == "connect-abstract" {
			name = "@" + arg
		}
		return unix.Connect(fd, &unix.SockaddrUnix{Name: name})
	case "socketpair":
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err == nil {
			unix.Close(fds[0])
			unix.Close(fds[1])
		}
		return err
	case "shmget-create":
		var key int
		fmt.Sscan(arg, &key)
		_, err := unix.SysvShmGet(key, 1<<20, unix.IPC_CREAT|0o666)
		return err
	case "shmget-find":
		var key int
		fmt.Sscan(arg, &key)
		_, err := unix.SysvShmGet(key, 0, 0)
		return err
	case "chmod-suid", "chmod-plain":
		if err := os.WriteFile(arg, []byte("#!/bin/sh\n"), 0o755); err != nil {
			return err
		}
		mode := uint32(0o4755)
		if action == "chmod-plain" {
			mode = 0o700
		}
		if err := unix.Chmod(arg, mode); err != nil {
			return err
		}
		return unix.Fchmodat(unix.AT_FDCWD, arg, mode, 0)
	case "open-suid":
		fd, err := unix.Open(arg, unix.O_CREAT|unix.O_WRONLY|unix.O_EXCL, 0o6755)
		if err != nil {
			return err
		}
		return unix.Close(fd)
	case "mknod-suid":
		return unix.Mknod(arg, unix.S_IFREG|0o4755, 0)
	case "memfd-exec":
		src, err := os.Open(arg)
		if err != nil {
			return err
		}
		defer src.Close()
		fd, err := unix.MemfdCreate("payload", 0)
		if err != nil {
			return err
		}
		if _, err := io.Copy(os.NewFile(uintptr(fd), "memfd"), src); err != nil {
			return err
		}
		argv0, _ := unix.BytePtrFromString("payload")
		argv := []*byte{argv0, nil}
		envv := []*byte{nil}
		empty, _ := unix.BytePtrFromString("")
		return raw(unix.SYS_EXECVEAT, uintptr(fd), uintptr(unsafe.Pointer(empty)), uintptr(unsafe.Pointer(&argv[0])),
			uintptr(unsafe.Pointer(&envv[0])), unix.AT_EMPTY_PATH)
	case "exec":
		return syscall.Exec(arg, []string{arg, "--version"}, nil)
	case "sethostname":
		return unix.Sethostname([]byte(arg))
	case "link":
		return unix.Link(arg, "linked")
	}
	return fmt.Errorf("unknown action %q", action)
}
