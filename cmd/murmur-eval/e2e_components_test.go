package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/componenttest"
)

// The component tests: WASM tools and script capsules that are components
// (sandbox/component) run through the real binary, built from the WAT
// fixtures in testdata/components as sandbox/component's tests build
// theirs (componenttest: wat2wasm + jco).

// ctoolManifest is the component tool's own murmur.yaml.
const ctoolManifest = `name: ctool
version: 0.1.0
runtime: tool
description: A component tool; op picks what it does.
input_schema:
  type: object
  properties:
    op: {type: string}
requires_files: [ctool.wasm]
`

// packComponentTool writes tools/<name>/ with its manifest and component
// and packs it into the capsule's project store, as installTool does for
// preview-1 tools.
func packComponentTool(t *testing.T, capsuleDir, name, manifest string, wasm []byte) {
	t.Helper()
	dir := filepath.Join(capsuleDir, "tools", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, capsuleManifestFile), manifest)
	if err := os.WriteFile(filepath.Join(dir, name+".wasm"), wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, "pack", dir, "--store", filepath.Join(capsuleDir, ".murmur", "artifacts"))
	if r.code != 0 {
		t.Fatalf("murmur-eval pack %s: exit %d\nstderr:\n%s", dir, r.code, r.stderr)
	}
}

const capsuleManifestFile = "murmur.yaml"

// componentCalls returns a session's tool_call events, as maps.
func componentCalls(t *testing.T, sessionDir string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range readLines(t, filepath.Join(sessionDir, "trace.jsonl")) {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		if ev["event_type"] == "tool_call" {
			out = append(out, ev)
		}
	}
	return out
}

// caseSession is the session folder of caseID in run folder out, from its
// results row.
func caseSession(t *testing.T, out, caseID string) string {
	t.Helper()
	row, ok := resultsByCase(t, out)[caseID]
	if !ok {
		t.Fatalf("no results row for case %q", caseID)
	}
	return filepath.Join(out, row["session_dir"].(string))
}

// TestComponentToolsInTheAgentLoop: the quickstart's preview-1 tools and a
// component tool in one capsule, the model's turns replayed. Each
// component call's result is the one the component gives (data, summary,
// status, metadata, chunks), a spinning call stops at the artifact's
// deadline and a ballooning one at the memory limit, both recorded with
// their reason, and every case of the run passes.
func TestComponentToolsInTheAgentLoop(t *testing.T) {
	dir := quickstart(t)
	packComponentTool(t, dir, "ctool", ctoolManifest, ctoolComponent(t))
	editManifest(t, dir, "  - name: notes\n", "  - name: ctool\n    runtime: tool\n    version: 0.1.0\n  - name: notes\n")
	// The balloon must meet the memory limit before the deadline the spin
	// meets: growing to 64 MiB took over 1 s under the race detector on a
	// loaded two-core CI machine, where a fresh page costs ~14 µs.
	editManifest(t, dir, "deadline_seconds: 10", "deadline_seconds: 4")
	writeFile(t, filepath.Join(dir, capsuleManifestFile), readFile(t, filepath.Join(dir, capsuleManifestFile))+"\ntrace:\n  include_tool_output: true\n")
	ct := func(op string) toolUse { return toolUse{"ctool", map[string]any{"op": op}} }
	writeScripted(t, dir, []scripted{
		{id: "mixed", calls: []toolUse{ct("e"), {"calc", map[string]any{"expression": "6*7"}}}},
		{id: "chunk", calls: []toolUse{ct("c")}},
		{id: "refused", calls: []toolUse{ct("x")}},
		{id: "spin", calls: []toolUse{ct("s")}},
		{id: "balloon", calls: []toolUse{ct("m")}},
	})
	out, r := newFixture(t, dir).run()
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	rows := resultsByCase(t, out)
	for _, id := range []string{"mixed", "chunk", "refused", "spin", "balloon"} {
		if rows[id]["status"] != "passed" {
			t.Errorf("case %s: status %v (%v %v), want passed", id, rows[id]["status"], rows[id]["error_code"], rows[id]["error_message"])
		}
	}
	type want struct {
		status, output, code, stateEffect string
		contains                          bool
	}
	for id, w := range map[string][]want{
		"mixed":   {{"ok", `{"op":"e"}`, "", "read", false}, {"ok", "42", "", "", false}},
		"chunk":   {{"ok", "chunked", "", "", false}},
		"refused": {{"error", "refused", "", "", false}},
		"spin":    {{"error", "exceeded its 4s execution deadline", errcode.RunCapsule, "", true}},
		"balloon": {{"error", "exceeds capabilities.limits.memory_bytes (67108864)", errcode.RunCapsule, "", true}},
	} {
		calls := componentCalls(t, caseSession(t, out, id))
		if len(calls) != len(w) {
			t.Errorf("case %s: %d tool_call events, want %d", id, len(calls), len(w))
			continue
		}
		for i, ev := range calls {
			got, _ := ev["output"].(string)
			okOut := got == w[i].output || (w[i].contains && strings.Contains(got, w[i].output))
			code, _ := ev["error_code"].(string)
			se, _ := ev["state_effect"].(string)
			if ev["status"] != w[i].status || !okOut || code != w[i].code || se != w[i].stateEffect {
				t.Errorf("case %s call %d: status %v output %q code %q state_effect %q, want %s %q %q %q",
					id, i, ev["status"], got, code, se, w[i].status, w[i].output, w[i].code, w[i].stateEffect)
			}
		}
	}
	// Each result is the one jco transpile + preview2-shim gives for the same input (the
	// reference of sandbox/component's differential test; it skips without node and jco).
	var inputs []*string
	ids := []string{"mixed", "chunk", "refused"}
	for _, op := range []string{"e", "c", "x"} {
		in := `{"op":"` + op + `"}`
		inputs = append(inputs, &in)
	}
	for i, ref := range componenttest.Reference(t, ctoolComponent(t), t.TempDir(), inputs) {
		ev := componentCalls(t, caseSession(t, out, ids[i]))[0]
		status := "ok"
		if ref.Status != "passed" {
			status = "error"
		}
		se := ""
		if len(ref.Metadata) > 0 && ref.Metadata[0][0] == "state_effect" {
			se = ref.Metadata[0][1]
		}
		got, _ := ev["output"].(string)
		gotSE, _ := ev["state_effect"].(string)
		if ref.Trap || got != ref.Text() || ev["status"] != status || gotSE != se {
			t.Errorf("case %s: output %q status %v state_effect %q; the reference gives %q %s %q (trap %v)",
				ids[i], got, ev["status"], gotSE, ref.Text(), status, se, ref.Trap)
		}
	}
	logs := readFile(t, filepath.Join(caseSession(t, out, "chunk"), "logs", "components.jsonl"))
	if want := `{"tool":"ctool","kind":"chunk","text":"{\"op\":\"c\"}"}` + "\n"; logs != want {
		t.Errorf("chunk: logs/components.jsonl = %q, want %q", logs, want)
	}
}

// scriptProject is a script capsule project (no inference block) with the
// component tool ctool, capsule.wasm the component fixture named fixture
// (testdata/components/<fixture>.wat, built by scripts/component-fixtures.sh),
// and cases.
func scriptProject(t *testing.T, fixture, cases string) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, capsuleManifestFile), `name: script-demo
version: 0.1.0
artifacts:
  - name: ctool
    runtime: tool
    version: 0.1.0
capabilities:
  env:
    allow: [COMPONENT_TEST_VAR]
  limits:
    memory_bytes: 67108864
    deadline_seconds: 5
`)
	packComponentTool(t, dir, "ctool", ctoolManifest, ctoolComponent(t))
	if err := os.WriteFile(filepath.Join(dir, "capsule.wasm"), componenttest.Fixture(t, fixture), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "cases.jsonl"), cases)
	if err := os.MkdirAll(filepath.Join(dir, "recordings"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestScriptCapsuleComponent: a capsule with no inference block runs its
// capsule.wasm once per case (task.md in its session, no model); the
// capsule invokes a component tool through the registry and writes
// out/result.txt, which the expected-output scorers score; murmur writes
// no trace event for a script run.
func TestScriptCapsuleComponent(t *testing.T) {
	e2eBinary(t)
	dir := scriptProject(t, "script",
		`{"case_id":"writes","task":"Echo seven.","expected":{"result_equals":"{\"op\":\"e\",\"n\":7}"}}`+"\n"+
			`{"case_id":"wrong","task":"Echo eight.","expected":{"result_contains":"\"n\":8"}}`+"\n")
	out, r := newFixture(t, dir).run()
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	rows := resultsByCase(t, out)
	if rows["writes"]["status"] != "passed" || rows["wrong"]["status"] != "failed" {
		t.Errorf("statuses writes=%v (%v) wrong=%v (%v), want passed and failed", rows["writes"]["status"], rows["writes"]["error_message"],
			rows["wrong"]["status"], rows["wrong"]["error_message"])
	}
	s := caseSession(t, out, "writes")
	for name, want := range map[string]string{"out/result.txt": `{"op":"e","n":7}`, "task.md": "Echo seven."} {
		if got := readFile(t, filepath.Join(s, name)); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if lines := readLines(t, filepath.Join(s, "trace.jsonl")); len(lines) != 0 {
		t.Errorf("trace.jsonl has %d events, want none (murmur writes none for a script run): %v", len(lines), lines)
	}
}

// TestScriptCapsuleRegistryAllowlist: a tool the manifest does not declare
// is the capsule's err with murmur's text.
func TestScriptCapsuleRegistryAllowlist(t *testing.T) {
	e2eBinary(t)
	// script_ghost.wat is script.wat invoking "ghost" instead of "ctool".
	want := "tool 'ghost' is not declared in manifest allowlist"
	dir := scriptProject(t, "script_ghost", `{"case_id":"ghost","task":"Call a ghost.","expected":{"result_equals":"`+want+`"}}`+"\n")
	out, r := newFixture(t, dir).run()
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if got := readFile(t, filepath.Join(caseSession(t, out, "ghost"), "out", "result.txt")); got != want {
		t.Errorf("out/result.txt = %q, want %q", got, want)
	}
}

// TestScriptCapsuleRegistryKinds: the registry serves each kind of WASM
// tool a capsule may mix: a component, a component of the preview-1
// adapter shape (jco new --wasi-reactor), and a preview-1 module; each
// result is the tool's own. A component with a filesystem.scope sees that
// folder as "." and cannot climb out of it.
func TestScriptCapsuleRegistryKinds(t *testing.T) {
	e2eBinary(t)
	ptool := componenttest.Fixture(t, "p1tool")
	// sandbox/component's tool fixture: "f<path>" reads <path> through its "." preopen,
	// or fails with 'A' + the error code ('`' is not-permitted).
	stool := componenttest.Fixture(t, "tool")
	t.Setenv("COMPONENT_TEST_VAR", "visible")
	// Each fixture is script.wat invoking tool with data instead of ctool
	// with {"op":"e","n":7} (testdata/components/<fixture>.wat).
	for _, tc := range []struct{ fixture, tool, data, want string }{
		{"script", "ctool", `{"op":"e","n":7}`, `{"op":"e","n":7}`},
		{"script_ptool_echo", "ptool", "ehello, adapter", "hello, adapter"},
		// capabilities.env.allow reaches a tool invoked by the registry.
		{"script_ptool_env", "ptool", "v", "COMPONENT_TEST_VAR=visible"},
		{"script_calc1", "calc1", `{"expression":"6*7"}`, "42"},
		// stool's filesystem.scope is tools/: "." is that folder of the session.
		{"script_stool_read", "stool", "fctool/murmur.yaml", ctoolManifest},
		{"script_stool_escape", "stool", "f../task.md", "`"},
	} {
		t.Run(tc.tool+" "+tc.data, func(t *testing.T) {
			dir := scriptProject(t, tc.fixture, `{"case_id":"kind","task":"Call it.","expected":{"result_equals":`+itoa0(tc.want)+`}}`+"\n")
			packComponentTool(t, dir, "ptool", strings.ReplaceAll(ctoolManifest, "ctool", "ptool"), ptool)
			packComponentTool(t, dir, "stool", strings.ReplaceAll(ctoolManifest, "ctool", "stool"), stool)
			calc := filepath.Join(dir, "tools", "calc1")
			if err := os.MkdirAll(calc, 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(calc, capsuleManifestFile), "name: calc1\nversion: 0.1.0\nruntime: tool\nrequires_files: [calc1.wasm]\n")
			installTool(t, dir, "calc1", "./examples/quickstart/tools/calc")
			editManifest(t, dir, "artifacts:\n", "artifacts:\n  - {name: ptool, runtime: tool, version: 0.1.0}\n  - {name: stool, runtime: tool, version: 0.1.0, capabilities: {filesystem: {scope: tools}}}\n  - {name: calc1, runtime: tool, version: 0.1.0}\n")
			out, r := newFixture(t, dir).run()
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if got := readFile(t, filepath.Join(caseSession(t, out, "kind"), "out", "result.txt")); got != tc.want {
				t.Errorf("out/result.txt = %q, want %q", got, tc.want)
			}
		})
	}
}

// itoa0 is s as a JSON string.
func itoa0(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// ctoolComponent is testdata/components/ctool.wat built as a component of
// the tool world (the committed fixture ctool).
func ctoolComponent(t *testing.T) []byte {
	t.Helper()
	return componenttest.Fixture(t, "ctool")
}

// statefulComponent is sandbox/component's stateful tool (reuse's test).
func statefulComponent(t *testing.T) []byte {
	t.Helper()
	return componenttest.Fixture(t, "stateful")
}

// TestComponentPastTheInstanceLimit: a capsule whose
// capabilities.limits.instances is below the core modules its component
// tool instantiates is refused before any case runs (exit 2, E-RUN-001
// naming the tool, the counts and murmur's text), where murmur would fail
// every call of the tool; at the count it runs.
func TestComponentPastTheInstanceLimit(t *testing.T) {
	e2eBinary(t)
	cases := `{"case_id":"writes","task":"Echo seven.","expected":{"result_equals":"{\"op\":\"e\",\"n\":7}"}}` + "\n"
	dir := scriptProject(t, "script", cases)
	editManifest(t, dir, "    deadline_seconds: 5\n", "    deadline_seconds: 5\n    instances: 2\n")
	_, r := newFixture(t, dir).run()
	if r.code != 2 {
		t.Fatalf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{errcode.RunCapsule, "ctool", "instantiates 3 core modules", "capabilities.limits.instances allows 2",
		"instance count too high at 3", "hint: raise capabilities.limits.instances to at least 3"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	editManifest(t, dir, "    instances: 2\n", "    instances: 3\n")
	out, r := newFixture(t, dir).run()
	if r.code != 0 {
		t.Fatalf("at the limit: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if rows := resultsByCase(t, out); rows["writes"]["status"] != "passed" {
		t.Errorf("at the limit: status %v (%v), want passed", rows["writes"]["status"], rows["writes"]["error_message"])
	}
}
