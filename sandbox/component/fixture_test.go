package component

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tetratelabs/wazero"
)

// buildFixture assembles testdata/<name>.wat and wraps it as a component
// of world with jco (testdata/build.mjs); names starting "p1" are
// preview-1 modules and get jco's reactor adapter. Without wat2wasm, node or the
// npm packages the test skips, except under CI=1 where it fails.
func buildFixture(t testing.TB, name, world string) []byte {
	t.Helper()
	need := func(ok bool, what string) {
		if ok {
			return
		}
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing (CI installs it: .ci/run)", what)
		}
		t.Skipf("%s is missing", what)
	}
	_, err := exec.LookPath("wat2wasm")
	need(err == nil, "wat2wasm")
	_, err = exec.LookPath("node")
	need(err == nil, "node")
	_, err = os.Stat("testdata/node_modules/@bytecodealliance/jco")
	need(err == nil, "jco (npm ci in sandbox/component/testdata)")
	dir := t.TempDir()
	core := filepath.Join(dir, name+".core.wasm")
	out := filepath.Join(dir, name+".wasm")
	if b, err := exec.Command("wat2wasm", "testdata/"+name+".wat", "-o", core).CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm %s: %v\n%s", name, err, b)
	}
	args := []string{"build.mjs", core, "fixtures.wit", world, out}
	if strings.HasPrefix(name, "p1") { // built against preview 1: wrap with jco's reactor adapter
		args = append(args, "reactor")
	}
	cmd := exec.Command("node", args...)
	cmd.Dir = "testdata"
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", name, err, b)
	}
	bin, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// haveFixtureTools reports whether wat2wasm, node and jco are installed.
func haveFixtureTools() bool {
	_, err1 := exec.LookPath("wat2wasm")
	_, err2 := exec.LookPath("node")
	_, err3 := os.Stat("testdata/node_modules/@bytecodealliance/jco")
	return err1 == nil && err2 == nil && err3 == nil
}

var fixtureCache sync.Map

// fixture returns the built component, building each once per test binary.
func fixture(t testing.TB, name, world string) []byte {
	if b, ok := fixtureCache.Load(name); ok {
		return b.([]byte)
	}
	b := buildFixture(t, name, world)
	fixtureCache.Store(name, b)
	return b
}

func newRuntime(t testing.TB) wazero.Runtime {
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(true))
	t.Cleanup(func() { _ = rt.Close(ctx) })
	return rt
}

func compileFixture(t testing.TB, rt wazero.Runtime, name, world string, w World) *Component {
	t.Helper()
	b, err := Decode(fixture(t, name, world))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compile(context.Background(), rt, b, w)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
