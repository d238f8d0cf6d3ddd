package sandbox

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// The control socket joins the parent and a launcher that must do
// something before the tool may start: hand over the sockets it bound in
// the call's network namespace, and wait while the parent puts it in the
// call's cgroup. It is a SOCK_SEQPACKET pair; the launcher's end is its
// descriptor 3 and is closed by the exec (close-on-exec), so the tool
// never holds it.
//
// The exchange is two messages:
//
//	launcher -> parent: one byte, the number of descriptors, with those
//	                    descriptors as SCM_RIGHTS
//	parent -> launcher: one byte, controlGo: the tool may start (only
//	                    when the launch spec says Wait: the call has a
//	                    cgroup to join first)
//
// Anything else (the parent closing its end, a short read) stops the
// launcher before the exec: fail closed.

// controlFD is the launcher's end of the control socket.
const controlFD = 3

// controlGo is the parent's go-ahead.
const controlGo = 'g'

// maxControlFDs bounds the descriptors one message carries: the proxy's
// ports (at most egress's 16) and the resolver's socket.
const maxControlFDs = 32

// launcherHandshake sends fds to the parent (and closes them here), then,
// with wait, waits for the go-ahead.
func launcherHandshake(fds []int, wait bool) error {
	if len(fds) > maxControlFDs {
		return fmt.Errorf("%d sockets to hand over, at most %d", len(fds), maxControlFDs)
	}
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	err := unix.Sendmsg(controlFD, []byte{byte(len(fds))}, oob, nil, 0)
	for _, fd := range fds {
		_ = unix.Close(fd)
	}
	if err != nil {
		return fmt.Errorf("hand the namespace's sockets to murmur-eval: %w", err)
	}
	if !wait {
		return unix.Close(controlFD)
	}
	var b [1]byte
	n, err := unix.Read(controlFD, b[:])
	if err != nil || n != 1 || b[0] != controlGo {
		return fmt.Errorf("murmur-eval did not let the call start (read %d bytes: %v)", n, err)
	}
	return unix.Close(controlFD)
}

// control is the parent's end of a call's control socket.
type control struct {
	mine  *os.File // the parent's end
	child *os.File // the launcher's end, closed once the launcher has started
}

// newControl makes the socket pair; child goes into the launcher's
// ExtraFiles as its descriptor 3.
func newControl() (*control, error) {
	// The parent's end is non-blocking, so its reads wait in Go's poller
	// rather than on a thread; the launcher's end blocks.
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	if err := unix.SetNonblock(fds[1], false); err != nil {
		_ = unix.Close(fds[0])
		_ = unix.Close(fds[1])
		return nil, fmt.Errorf("control socket: %w", err)
	}
	return &control{mine: os.NewFile(uintptr(fds[0]), "control"), child: os.NewFile(uintptr(fds[1]), "control-launcher")}, nil
}

// started closes the parent's copy of the launcher's end, so the parent
// sees end-of-file when the launcher exits.
func (c *control) started() { _ = c.child.Close() }

// errLauncherGone is receive's error when the launcher exited (or was
// killed) before it handed anything over: its own message says why.
var errLauncherGone = errors.New("the launcher exited before the call started")

// receive reads the launcher's message: the descriptors it bound, each
// close-on-exec in this process. want is how many it must send.
func (c *control) receive(want int) ([]*os.File, error) {
	raw, err := c.mine.SyscallConn()
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(4*maxControlFDs))
	var n, oobn int
	var rerr error
	if err := raw.Read(func(fd uintptr) bool {
		n, oobn, _, _, rerr = unix.Recvmsg(int(fd), buf, oob, unix.MSG_CMSG_CLOEXEC)
		return rerr != unix.EAGAIN
	}); err != nil {
		return nil, err
	}
	if rerr != nil {
		return nil, rerr
	}
	var files []*os.File
	if oobn > 0 {
		msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			fds, err := unix.ParseUnixRights(&m)
			if err != nil {
				closeFiles(files)
				return nil, err
			}
			for _, fd := range fds {
				files = append(files, os.NewFile(uintptr(fd), "egress"))
			}
		}
	}
	if n == 0 {
		closeFiles(files)
		return nil, errLauncherGone
	}
	if int(buf[0]) != want || len(files) != want {
		closeFiles(files)
		return nil, fmt.Errorf("the launcher handed over %d sockets (announced %d), want %d", len(files), buf[0], want)
	}
	return files, nil
}

// release lets the launcher exec the tool.
func (c *control) release() error {
	_, err := c.mine.Write([]byte{controlGo})
	return err
}

// Close closes the parent's end (and the launcher's, if still held).
func (c *control) Close() {
	_ = c.child.Close()
	_ = c.mine.Close()
}

func closeFiles(fs []*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}
