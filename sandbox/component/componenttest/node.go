package componenttest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// RunNode transpiles the component wasm with jco (as name, with
// sandbox/component/testdata's JS stand-ins for murmur's imports: the
// task and chunks interfaces, run-inference), runs the testdata script
// (difftest.mjs, hookdiff.mjs) on it under Node with args after the
// module's path, one stdin line per element of lines, and returns what
// the script printed after its \x01 marker on each line: one JSON
// result per input line. It fails t when the count differs.
func RunNode(t testing.TB, wasm []byte, name, script string, args []string, lines [][]byte) []string {
	t.Helper()
	Available(t)
	td, err := filepath.Abs(testdata(t))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	file := filepath.Join(tmp, name+".wasm")
	if err := os.WriteFile(file, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "js")
	cmd := exec.Command(filepath.Join(td, "node_modules", ".bin", "jco"), "transpile", file, "-o", out, "--name", name,
		"--map", "murmur:task/task@0.1.0="+filepath.Join(td, "task.mjs"),
		"--map", "murmur:text/chunks@0.1.0="+filepath.Join(td, "chunks.mjs"),
		"--map", "murmur:runtime/inference@0.2.0="+filepath.Join(td, "inference.mjs"))
	cmd.Dir = td
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("jco transpile: %v\n%s", err, b)
	}
	if err := os.Symlink(filepath.Join(td, "node_modules"), filepath.Join(tmp, "node_modules")); err != nil {
		t.Fatal(err)
	}
	var stdin bytes.Buffer
	for _, l := range lines {
		stdin.Write(append(l, '\n'))
	}
	node := exec.Command("node", append([]string{filepath.Join(td, script), filepath.Join(out, name+".js")}, args...)...)
	node.Stdin = &stdin
	var stdout, stderr bytes.Buffer
	node.Stdout, node.Stderr = &stdout, &stderr
	if err := node.Run(); err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var res []string
	for _, l := range strings.Split(stdout.String(), "\n") {
		// The guest's own stdout may precede the marker on the same line.
		if i := strings.IndexByte(l, 1); i >= 0 {
			res = append(res, l[i+1:])
		}
	}
	if len(res) != len(lines) {
		t.Fatalf("node printed %d results for %d inputs:\n%s", len(res), len(lines), stdout.String())
	}
	return res
}
