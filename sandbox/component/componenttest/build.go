// Package componenttest builds WebAssembly component fixtures for tests
// outside sandbox/component, the way that package's own tests build theirs:
// a WAT core module assembled by wat2wasm and wrapped by jco (embed + new)
// with sandbox/component/testdata's build.mjs, fixtures.wit and pinned npm
// packages (installed by .ci/run). Without the tools a test skips, except
// under CI=1 where it fails.
package componenttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// testdata is sandbox/component/testdata, found from this file's path.
func testdata(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("componenttest: cannot locate sandbox/component/testdata")
	}
	return filepath.Join(filepath.Dir(file), "..", "testdata")
}

// Available reports whether wat2wasm, node and jco are installed, and
// otherwise skips t (fails it under CI=1).
func Available(t testing.TB) {
	t.Helper()
	var missing string
	if _, err := exec.LookPath("wat2wasm"); err != nil {
		missing = "wat2wasm"
	} else if _, err := exec.LookPath("node"); err != nil {
		missing = "node"
	} else if _, err := os.Stat(filepath.Join(testdata(t), "node_modules", "@bytecodealliance", "jco")); err != nil {
		missing = "jco (npm ci in sandbox/component/testdata)"
	}
	if missing == "" {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is missing (CI installs it: .ci/run)", missing)
	}
	t.Skipf("%s is missing", missing)
}

// Build assembles the WAT file wat and wraps it as a component of world
// (one of fixtures.wit's: tool, probe, capsule). reactor wraps a module
// built against WASI preview 1 with jco's reactor adapter.
func Build(t testing.TB, wat, world string, reactor bool) []byte {
	t.Helper()
	Available(t)
	wat, err := filepath.Abs(wat)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	core := filepath.Join(dir, "core.wasm")
	out := filepath.Join(dir, "component.wasm")
	if b, err := exec.Command("wat2wasm", wat, "-o", core).CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm %s: %v\n%s", wat, err, b)
	}
	args := []string{"build.mjs", core, "fixtures.wit", world, out}
	if reactor {
		args = append(args, "reactor")
	}
	cmd := exec.Command("node", args...)
	cmd.Dir = testdata(t)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", wat, err, b)
	}
	bin, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}
