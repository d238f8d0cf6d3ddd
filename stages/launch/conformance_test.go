package launch

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/stages/contain"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
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

// run.rs::run_unlisted_tool_call_returns_error_to_capsule_without_panic:
// a tool the capsule does not provide gets murmur's words; murmur-eval's
// tool_call adds error_code E-EVL-070.
func TestMurmur_run_unlisted_tool_call_returns_error_to_capsule_without_panic(t *testing.T) {
	tb := &toolbox{set: &verify.Toolset{Tools: map[string]*verify.Tool{}}, policy: &contain.Policy{Root: t.TempDir()}}
	reply, err := tb.Call(context.Background(), "non-existent-tool", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "tool 'non-existent-tool' is not declared in manifest allowlist"
	if reply.Text != want || !reply.IsError || reply.Code != errcode.ToolNotProvided {
		t.Errorf("reply %+v, want error %q with %s", reply, want, errcode.ToolNotProvided)
	}
}

// shell.rs::shell_blocks_undeclared_binary: a binary not in shell.allow is
// an unknown tool, with the same words.
func TestMurmur_shell_blocks_undeclared_binary(t *testing.T) {
	tb := &toolbox{set: &verify.Toolset{Tools: map[string]*verify.Tool{"bash": {Name: "bash", Shell: true}}}, policy: &contain.Policy{Root: t.TempDir()}}
	reply, err := tb.Call(context.Background(), "curl", json.RawMessage(`{"command":"http://example.com"}`))
	if err != nil {
		t.Fatal(err)
	}
	if reply.Text != "tool 'curl' is not declared in manifest allowlist" || !reply.IsError {
		t.Errorf("reply %+v", reply)
	}
}

// shell_desc_driver.rs::shell_desc_driver_not_declared_falls_back_to_generic:
// a shell.allow binary is described to the model, and in MURMUR.md, with
// murmur's generic words and schema.
func TestMurmur_shell_desc_driver_not_declared_falls_back_to_generic(t *testing.T) {
	if got, want := sandbox.ShellToolDescription("bash"), "Run a shell command via bash in the capsule workdir. The `command` field is passed to bash via -c."; got != want {
		t.Errorf("bash description %q, want %q", got, want)
	}
	if got := sandbox.ShellToolDescription("curl"); !strings.HasPrefix(got, "Run curl in the capsule workdir. The `command` field is the argument list") {
		t.Errorf("curl description %q", got)
	}
	m := &capsule.Manifest{Name: "qs", Version: "1", Capabilities: capsule.Capabilities{Shell: capsule.Shell{Allow: []string{"bash"}}}}
	md := murmurMD{Manifest: m, Dir: t.TempDir(), SessionID: "ses_1", Version: "dev", Now: time.Unix(0, 0)}.render()
	if want := "- **bash** (v0.0.0, tool) — Run a shell command via bash in the capsule workdir. The command field is passed to bash via -c.\n"; !strings.Contains(md, want) {
		t.Errorf("MURMUR.md does not list %q:\n%s", want, md)
	}
}

// skill_local_source.rs::local_source_file_path_installs_skill_md: a
// local-source skill staged as tools/<name>/skill.md is listed in MURMUR.md
// and served by name as a skill, though it is in no tool inventory.
func TestMurmur_local_source_file_path_installs_skill_md(t *testing.T) {
	session := t.TempDir()
	writeTools(t, session, map[string]string{"my-skill/skill.md": "# Local Skill\nEdit me live.\n"})
	m := &capsule.Manifest{Name: "cap", Version: "0.1.0"}
	md := murmurMD{Manifest: m, Dir: session, SessionID: "ses_1", Version: "dev", Now: time.Unix(0, 0)}.render()
	if want := "- **my-skill** — # Local Skill *(call by name to load guidance)*\n"; !strings.Contains(md, want) {
		t.Errorf("MURMUR.md does not list %q:\n%s", want, md)
	}
	tb := &toolbox{set: &verify.Toolset{Tools: map[string]*verify.Tool{}}, policy: &contain.Policy{Root: session}}
	reply, err := tb.Call(context.Background(), "my-skill", json.RawMessage(`{}`))
	if err != nil || !reply.Skill || reply.IsError || reply.Text != "# Local Skill\nEdit me live.\n" {
		t.Errorf("call my-skill = %+v, %v", reply, err)
	}
	// Only a plain name is looked up in tools/.
	for _, name := range []string{"../my-skill", "tools/my-skill", "..", ""} {
		if r, _ := tb.Call(context.Background(), name, json.RawMessage(`{}`)); r.Skill || !r.IsError {
			t.Errorf("call %q = %+v, want not declared", name, r)
		}
	}
}

// The toolbox half of tool_call_records_declared_state_effect /
// …_resource_id: the reserved keys of a tool result's metadata, murmur's
// first-pair rule (an empty first value is absent).
func TestMurmur_tool_call_records_declared_resource_id(t *testing.T) {
	r := resultReply(sandbox.ToolResult{Status: sandbox.StatusPassed, Data: "x", HasData: true,
		Metadata: [][2]string{{"resource_id", "sym:Foo::bar"}, {"state_effect", ""}, {"state_effect", "mutate"}}})
	if r.ResourceID != "sym:Foo::bar" || r.StateEffect != "" || r.Text != "x" || r.IsError {
		t.Errorf("reply %+v", r)
	}
}
