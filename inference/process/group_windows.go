package process

import (
	"os"
	"syscall"
)

// ownGroup: Windows has no process groups to start; the process alone is
// killed.
func ownGroup() *syscall.SysProcAttr { return nil }

func killTree(p *os.Process) { _ = p.Kill() }
