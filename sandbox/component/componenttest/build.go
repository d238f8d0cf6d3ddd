package componenttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Build assembles the WAT file wat and wraps it as a component of world
// (one of fixtures.wit's: tool, probe, capsule). reactor wraps a module
// built against WASI preview 1 with jco's reactor adapter.
//
// Deprecated: use Fixture (a committed build). Build remains until its
// last caller (stages/verify's hooks_component_test.go) moves to Fixture.
func Build(t testing.TB, wat, world string, reactor bool) []byte {
	t.Helper()
	Available(t)
	if _, err := exec.LookPath("wat2wasm"); err != nil {
		t.Skip("wat2wasm is missing")
	}
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
