package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/componenttest"
)

// hostileManifest is the hostile tool's own murmur.yaml.
const hostileManifest = `name: hostile
version: 0.1.0
runtime: tool
description: A tool whose binary lies about its counts.
input_schema:
  type: object
requires_files: [hostile.wasm]
`

// TestHostileModuleRefusedAtVerify: a WASM tool whose binary declares
// counts its bytes cannot hold, which made wazero end the whole process
// ("fatal error: runtime: out of memory"), is refused at Verify like any
// capsule that cannot run: exit 2, E-RUN-001 naming the tool and the
// count, and no Go runtime crash. Once as a preview-1 module (the 15-byte
// data section bomb), once as a preview-1 module defining four tables of
// 2^27 elements (4 GiB at instantiation), once as a component whose main
// module carries a name section declaring 2^32-1 function names.
func TestHostileModuleRefusedAtVerify(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	qs := quickstart(t)
	t.Parallel()
	tests := []struct {
		name   string
		wasm   func(t *testing.T) []byte
		reason string
	}{
		{"preview-1 module", func(*testing.T) []byte {
			return []byte("\x00asm\x01\x00\x00\x00\x0b\x05\xff\xff\xff\xff\x0f")
		}, "data section declares 4294967295 segments in 5 bytes"},
		{"preview-1 module with 4 tables of 2^27 elements", func(*testing.T) []byte {
			return coreModule(coreSection(4, []byte{4}, bytes.Repeat([]byte{0x70, 0, 0x80, 0x80, 0x80, 0x40}, 4)))
		}, "table section: table 0's minimum is 134217728 elements; at most 100000 are allowed"},
		{"component main module", func(t *testing.T) []byte {
			return withNameBomb(t, ctoolComponent(t))
		}, "component main module: name section: function names declares 4294967295 names in 5 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := copyTree(t, qs)
			packComponentTool(t, dir, "hostile", hostileManifest, tt.wasm(t))
			editManifest(t, dir, "  - name: notes\n", "  - name: hostile\n    runtime: tool\n    version: 0.1.0\n  - name: notes\n")
			_, r := newFixture(t, dir).run()
			if strings.Contains(r.stderr, "fatal error") || strings.Contains(r.stderr, "goroutine ") {
				t.Fatalf("murmur-eval crashed:\n%s", r.stderr)
			}
			if r.code != exitUsage {
				t.Fatalf("exit %d, want %d (a capsule refused at Verify)\nstderr:\n%s", r.code, exitUsage, r.stderr)
			}
			i := strings.LastIndex(r.stderr, "error["+errcode.RunCapsule+"]: ")
			if i < 0 {
				t.Fatalf("no %s error:\n%s", errcode.RunCapsule, r.stderr)
			}
			line, _, _ := strings.Cut(r.stderr[i:], "\n")
			if !strings.Contains(line, "tool 'hostile'") || !strings.Contains(line, tt.reason) {
				t.Errorf("the refusal %q does not name tool 'hostile' and %q", line, tt.reason)
			}
		})
	}
}

// withNameBomb appends to a component's first core module (its main
// module, in a wit-component build) a name section whose function-name
// map declares 2^32-1 entries in 5 bytes.
func withNameBomb(t *testing.T, bin []byte) []byte {
	t.Helper()
	bomb := []byte{0, 12, 4, 'n', 'a', 'm', 'e', 1, 5, 0xff, 0xff, 0xff, 0xff, 0x0f}
	return componenttest.EditCore(t, bin, 0, func(mod []byte) []byte { return append(mod, bomb...) })
}

// TestHostileTableGrowTraps: a preview-1 tool whose table has no maximum
// and whose _start grows it by 2^27 elements until table.grow returns -1
// (32 GiB, ending the process, before tables were capped) is stopped at
// its first grow as murmur stops it: the call fails with E-RUN-001 and
// murmur's text, "table growth to 134217728 elements exceeds
// capabilities.limits.table_elements (100000)", the model is told so, and
// the run completes with the case recorded.
func TestHostileTableGrowTraps(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := quickstart(t)
	t.Parallel()
	packComponentTool(t, dir, "hostile", hostileManifest, growTool())
	editManifest(t, dir, "  - name: notes\n", "  - name: hostile\n    runtime: tool\n    version: 0.1.0\n  - name: notes\n")
	writeScripted(t, dir, []scripted{{id: "grow", calls: []toolUse{{"hostile", map[string]any{}}}}})
	out, r := newFixture(t, dir).run()
	if strings.Contains(r.stderr, "fatal error") || strings.Contains(r.stderr, "goroutine ") {
		t.Fatalf("murmur-eval crashed:\n%s", r.stderr)
	}
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	row, ok := resultsByCase(t, out)["grow"]
	if !ok {
		t.Fatalf("no results row for case grow")
	}
	session := filepath.Join(out, row["session_dir"].(string))
	calls := componentCalls(t, session)
	if len(calls) != 1 || calls[0]["status"] != "error" || calls[0]["error_code"] != errcode.RunCapsule {
		t.Errorf("tool_call events %v, want one in error with %s", calls, errcode.RunCapsule)
	}
	const want = "tool 'hostile' exceeded its configured resource limits: " +
		"table growth to 134217728 elements exceeds capabilities.limits.table_elements (100000)"
	transcript, err := os.ReadFile(filepath.Join(session, "logs", "transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(transcript), want) {
		t.Errorf("the transcript does not give the model %q:\n%s", want, transcript)
	}
}

// growTool is a preview-1 command module with one funcref table of no
// maximum whose _start does table.grow by 2^27 null references until it
// returns -1, then returns.
func growTool() []byte {
	body := []byte{
		0,          // no locals
		0x02, 0x40, // block
		0x03, 0x40, // loop
		0xd0, 0x70, // ref.null func
		0x41, 0x80, 0x80, 0x80, 0xc0, 0x00, // i32.const 2^27
		0xfc, 0x0f, 0, // table.grow 0
		0x41, 0x7f, // i32.const -1
		0x46,    // i32.eq
		0x0d, 1, // br_if 1: out of the block
		0x0c, 0, // br 0: the loop again
		0x0b, 0x0b, 0x0b, // end loop, block, function
	}
	return coreModule(
		coreSection(1, []byte{1, 0x60, 0, 0}),
		coreSection(3, []byte{1, 0}),
		coreSection(4, []byte{1, 0x70, 0, 0}),
		coreSection(7, []byte{1, 6}, []byte("_start"), []byte{0, 0}),
		coreSection(10, []byte{1}, componenttest.AppendULEB(nil, len(body)), body),
	)
}

// coreModule is a core module of the given sections.
func coreModule(sections ...[]byte) []byte {
	return append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Join(sections, nil)...)
}

// coreSection is a section: its id, its size, then its contents.
func coreSection(id byte, contents ...[]byte) []byte {
	body := bytes.Join(contents, nil)
	return append(componenttest.AppendULEB([]byte{id}, len(body)), body...)
}
