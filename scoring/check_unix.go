//go:build unix

package scoring

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts the check in a process group of its own, and makes
// a timeout kill the whole group, not only the shell at its head.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// killProcessGroup kills whatever the check left running in its group once
// it has exited (a server it started in the background, say). While any
// member remains the group id cannot be handed out again; when none does,
// the kill finds no group (a new process would have to take that very pid
// and make itself a group leader in between).
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
