// Package componenttest gives tests the WebAssembly component fixtures
// built from sandbox/component/testdata's and other packages' WAT sources
// by scripts/component-fixtures.sh and committed under
// sandbox/component/testdata/wasm (Fixture), and runs a component on Node
// through jco, the reference the differential tests compare the Go host
// with (RunNode, Reference: they need node and the npm packages .ci/run
// installs; without them a test fails unless the run opted out: internal/tooltest).
package componenttest

//go:generate bash ../../../scripts/component-fixtures.sh

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/murmur-nexus/murmur-eval/internal/tooltest"
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

// Available requires node and jco (for RunNode and Reference): without
// them it fails t, saying how to install them, unless the run opted out
// (internal/tooltest), when it skips t.
func Available(t testing.TB) {
	t.Helper()
	if tooltest.Require(t, "node") == "" {
		return
	}
	if _, err := os.Stat(filepath.Join(testdata(t), "node_modules", "@bytecodealliance", "jco")); err != nil {
		tooltest.Missing(t, "jco", "npm ci --no-audit --no-fund in sandbox/component/testdata")
	}
}
