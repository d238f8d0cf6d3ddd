package launch

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Conformance tests named after murmur's integration tests
// (crates/murmur-cli/tests/<file>.rs::<function>); the table in
// docs/murmur-compatibility.md lists every row.

// system_prompt.rs::missing_system_prompt_file_fails_at_launch:
// E-RUN-009 with murmur's words, "failed to read
// inference.system_prompt_file at <path>".
func TestMurmur_missing_system_prompt_file_fails_at_launch(t *testing.T) {
	project := t.TempDir()
	src := "name: qs\nversion: '1'\ninference: {endpoint: 'https://x.example', model: m, driver: {artifact: d}, system_prompt_file: nope.md}\n"
	m, err := capsule.ParseManifest(filepath.Join(project, "murmur.yaml"), []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = systemPrompt(m, t.TempDir())
	if !errcode.Is(err, errcode.RunSystemPrompt) {
		t.Fatalf("systemPrompt = %v, want %s", err, errcode.RunSystemPrompt)
	}
	want := "failed to read inference.system_prompt_file at " + filepath.Join(project, "nope.md") + ": no such file or directory"
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error = %q, want %q", err, want)
	}
}

// shell.rs::shell_execute_bash_and_reads_stdout: the model gets
// "$ <command>\nExit code: N\nStdout:\n<out>\nStderr:\n<err>".
func TestMurmur_shell_execute_bash_and_reads_stdout(t *testing.T) {
	tb, _ := subprocessBox(t, resources())
	reply, err := tb.Call(context.Background(), "sh", json.RawMessage(`{"command":"echo hello"}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "$ echo hello\nExit code: 0\nStdout:\nhello\n\nStderr:\n"; reply.Text != want || reply.IsError {
		t.Errorf("reply %q (error %v), want %q", reply.Text, reply.IsError, want)
	}
}

// shell.rs::shell_propagates_nonzero_exit_code: a non-zero exit is in the
// text and the shell event, and the tool_call is not an error.
func TestMurmur_shell_propagates_nonzero_exit_code(t *testing.T) {
	tb, _ := subprocessBox(t, resources())
	reply, err := tb.Call(context.Background(), "sh", json.RawMessage(`{"command":"exit 3"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(reply.Text, "Exit code: 3\n") || reply.IsError || reply.Shell == nil || reply.Shell.ExitCode != 3 {
		t.Errorf("reply %+v", reply)
	}
}
