//go:build unix

package process

import (
	"os"
	"syscall"
)

// ownGroup starts the subprocess in its own process group.
func ownGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killTree kills the subprocess's whole process group.
func killTree(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }
