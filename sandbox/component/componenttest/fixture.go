// Package componenttest gives tests the WebAssembly component fixtures
// built from sandbox/component/testdata's and other packages' WAT sources
// by scripts/component-fixtures.sh and committed under
// sandbox/component/testdata/wasm (Fixture), and runs a component on Node
// through jco, the reference the differential tests compare the Go host
// with (RunNode, Reference: they need node and the npm packages .ci/run
// installs; without them a test skips, except under CI=1 where it fails).
package componenttest

//go:generate bash ../../../scripts/component-fixtures.sh

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

// Fixture returns the committed build of fixture name
// (sandbox/component/testdata/wasm/<name>.wasm; the list is in
// scripts/component-fixtures.sh), failing t when it is missing.
func Fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata(t), "wasm", name+".wasm"))
	if err != nil {
		t.Fatalf("component fixture %s: %v (build it: scripts/component-fixtures.sh)", name, err)
	}
	return b
}

// Available reports whether node and jco are installed (for RunNode and
// Reference), and otherwise skips t (fails it under CI=1).
func Available(t testing.TB) {
	t.Helper()
	var missing string
	if _, err := exec.LookPath("node"); err != nil {
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
