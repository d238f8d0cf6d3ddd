package loop

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/hooks"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// TestShellHookEventCarriesTheOutput: on-shell gets the trace event's
// fields and the call's captured stdout and stderr text.
func TestShellHookEventCarriesTheOutput(t *testing.T) {
	ev := trace.Shell{Turn: 2, Binary: "/bin/sh", Command: "echo hi; echo no >&2", ExitCode: 1, StdoutBytes: 3, StderrBytes: 3, DurationMS: 4}
	reply := session.ToolReply{Shell: &ev, ShellStdout: "hi\n", ShellStderr: "no\n"}
	want := hooks.Shell{Turn: 2, Binary: "/bin/sh", Command: "echo hi; echo no >&2", ExitCode: 1,
		Stdout: "hi\n", Stderr: "no\n", StdoutBytes: 3, StderrBytes: 3, DurationMS: 4}
	if diff := cmp.Diff(want, shellHookEvent(ev, reply)); diff != "" {
		t.Errorf("on-shell payload (-want +got):\n%s", diff)
	}
}
