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
//	attack tcp HOST:PORT (connect, send a line, print the answer's first line)
//	attack udp HOST:PORT (send one datagram)
//	attack resolve NAME (look NAME up through the resolver)
//	attack caps (ALLOWED when the process holds no capability at all)
//	attack spawn N SELF (start up to N children of SELF that sleep; print how many started)
//	attack hog (touch memory 16 MiB at a time, up to 4 GiB)
package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
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
	case "tcp":
		c, err := net.DialTimeout("tcp", arg, 5*time.Second)
		if err != nil {
			return err
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.WriteString(c, "ping\n"); err != nil {
			return err
		}
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			return err
		}
		fmt.Print("answer: " + line)
		return nil
	case "udp":
		c, err := net.Dial("udp", arg)
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = io.WriteString(c, "exfiltrated")
		return err
	case "resolve":
		addrs, err := net.LookupHost(arg)
		if err != nil {
			return err
		}
		fmt.Println("addresses:", strings.Join(addrs, ","))
		return nil
	case "spawn":
		var n int
		fmt.Sscan(arg, &n)
		self := os.Args[len(os.Args)-1] // attack spawn N SELF: /proc/self/exe is out of reach
		var pids []int
		var ferr error
		for len(pids) < n {
			pid, err := syscall.ForkExec(self, []string{"attack", "sleep"}, &syscall.ProcAttr{})
			if err != nil {
				ferr = err
				break
			}
			pids = append(pids, pid)
		}
		fmt.Printf("started %d\n", len(pids))
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			_, _ = syscall.Wait4(pid, nil, 0, nil)
		}
		return ferr
	case "sleep":
		time.Sleep(30 * time.Second)
		return nil
	case "hog":
		var held [][]byte
		for total := 0; total < 4<<30; total += 16 << 20 {
			b := make([]byte, 16<<20)
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1
			}
			held = append(held, b)
		}
		fmt.Println("held", len(held)*16, "MiB")
		return nil
	case "caps":
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData
		if err := unix.Capget(&hdr, &data[0]); err != nil {
			return err
		}
		for _, d := range data {
			if d.Effective|d.Permitted|d.Inheritable != 0 {
				return fmt.Errorf("holds capabilities: %+v", data)
			}
		}
		for _, c := range []int{unix.CAP_NET_ADMIN, unix.CAP_NET_BIND_SERVICE} {
			if set, _ := unix.PrctlRetInt(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_IS_SET, uintptr(c), 0, 0); set != 0 {
				return fmt.Errorf("holds ambient capability %d", c)
			}
		}
		return nil
	}
	return fmt.Errorf("unknown action %q", action)
}
