package componenttest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Result is a tool-result as the reference (jco transpile +
// @bytecodealliance/preview2-shim on Node) gives it; Trap is set when the
// call threw.
type Result struct {
	Status   string      `json:"status"`
	Summary  *string     `json:"summary"`
	Data     *string     `json:"data"`
	Metadata [][2]string `json:"metadata"`
	Trap     bool        `json:"trap"`
}

// Text is what murmur shows the model of r: data, else summary, else
// "tool returned no data".
func (r Result) Text() string {
	switch {
	case r.Data != nil:
		return *r.Data
	case r.Summary != nil:
		return *r.Summary
	}
	return "tool returned no data"
}

// Reference runs the tool component wasm on Node through jco transpile and
// sandbox/component/testdata/difftest.mjs, the reference sandbox/component's
// differential test compares the Go host with, once per input (its data;
// nil for none), with preopen as ".". It returns one Result per input.
func Reference(t testing.TB, wasm []byte, preopen string, inputs []*string) []Result {
	t.Helper()
	Available(t)
	td, err := filepath.Abs(testdata(t))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	file := filepath.Join(tmp, "tool.wasm")
	if err := os.WriteFile(file, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "js")
	cmd := exec.Command(filepath.Join(td, "node_modules", ".bin", "jco"), "transpile", file, "-o", out, "--name", "tool",
		"--map", "murmur:task/task@0.1.0="+filepath.Join(td, "task.mjs"),
		"--map", "murmur:text/chunks@0.1.0="+filepath.Join(td, "chunks.mjs"))
	cmd.Dir = td
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("jco transpile: %v\n%s", err, b)
	}
	if err := os.Symlink(filepath.Join(td, "node_modules"), filepath.Join(tmp, "node_modules")); err != nil {
		t.Fatal(err)
	}
	var stdin bytes.Buffer
	for _, in := range inputs {
		b, _ := json.Marshal(in)
		stdin.Write(append(b, '\n'))
	}
	node := exec.Command("node", filepath.Join(td, "difftest.mjs"), filepath.Join(out, "tool.js"), preopen)
	node.Stdin = &stdin
	var stdout, stderr bytes.Buffer
	node.Stdout, node.Stderr = &stdout, &stderr
	if err := node.Run(); err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var res []Result
	for _, l := range strings.Split(stdout.String(), "\n") {
		// The guest's own stdout may precede the marker on the same line.
		if i := strings.IndexByte(l, 1); i >= 0 {
			var r Result
			if err := json.Unmarshal([]byte(l[i+1:]), &r); err != nil {
				t.Fatalf("reference result %q: %v", l[i+1:], err)
			}
			res = append(res, r)
		}
	}
	if len(res) != len(inputs) {
		t.Fatalf("node printed %d results for %d inputs:\n%s", len(res), len(inputs), stdout.String())
	}
	return res
}
