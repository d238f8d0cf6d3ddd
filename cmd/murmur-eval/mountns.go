package main

import (
	"os"

	"github.com/murmur-nexus/murmur-eval/datasets/workspace"
)

// enterMountNS re-executes a run as root in a mount namespace of its own
// (workspace.EnterPrivateMountNS), so that workspace overlays can be
// mounted and vanish with the process however it ends. Only the run
// command does, and not when MURMUR_EVAL_WORKSPACE_CLONE names a mechanism
// that mounts nothing; a refusal leaves the run as it is (no overlays).
func enterMountNS() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "pack", "merge", "score", "diff", "show", "report", "view", "help", "version", "-h", "-help", "--help":
			return
		}
	}
	switch workspace.Mechanism(os.Getenv(workspace.CloneEnv)) {
	case workspace.Reflink, workspace.Copy:
		return
	}
	_ = workspace.EnterPrivateMountNS(os.Args, os.Environ())
}
