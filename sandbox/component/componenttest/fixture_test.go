package componenttest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/internal/tooltest"
)

// TestFixturesUpToDate rebuilds every fixture with
// scripts/component-fixtures.sh (when wat2wasm, node, jco and go are
// installed; CI installs them) and fails when a committed file under
// sandbox/component/testdata/wasm differs from its rebuild, is missing or
// is no longer built: the committed bytes are what every test runs.
func TestFixturesUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: rebuilds every fixture with wat2wasm, jco and go")
	}
	Available(t)
	for _, tool := range []string{"wat2wasm", "go"} {
		tooltest.Require(t, tool)
	}
	td := testdata(t)
	out := t.TempDir()
	script := filepath.Join(td, "..", "..", "..", "scripts", "component-fixtures.sh")
	if b, err := exec.Command("bash", script, out).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, b)
	}
	committed := wasmFiles(t, filepath.Join(td, "wasm"))
	built := wasmFiles(t, out)
	const hint = "run scripts/component-fixtures.sh and commit sandbox/component/testdata/wasm"
	// The Go driver is compared only when this Go release built it (another
	// release may compile it differently).
	skip := map[string]bool{}
	if got, want := readTrimmed(t, out, "openai-driver.goversion"), readTrimmed(t, filepath.Join(td, "wasm"), "openai-driver.goversion"); got != want {
		t.Logf("openai-driver.wasm was built by %s, this toolchain is %s: not compared", want, got)
		skip["openai-driver.wasm"] = true
	}
	for _, name := range built {
		if skip[name] {
			continue
		}
		want, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(td, "wasm", name))
		switch {
		case err != nil:
			t.Errorf("%s is built but not committed: %s", name, hint)
		case !bytes.Equal(got, want):
			t.Errorf("%s: committed %d bytes differ from the rebuild's %d: %s", name, len(got), len(want), hint)
		}
	}
	for _, name := range committed {
		if !slices.Contains(built, name) {
			t.Errorf("%s is committed but no longer built: delete it or add it to scripts/component-fixtures.sh", name)
		}
	}
}

func readTrimmed(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func wasmFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range m {
		m[i] = filepath.Base(m[i])
	}
	return m
}

// TestFixture reads a committed fixture: a component (layer 1 preamble).
func TestFixture(t *testing.T) {
	b := Fixture(t, "tool")
	if len(b) < 8 || string(b[:4]) != "\x00asm" || b[6] != 1 {
		t.Fatalf("tool.wasm does not open with a component's preamble: % x", b[:min(len(b), 8)])
	}
}
