package drivertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/sandbox/component"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/componenttest"
)

// dir is this package's directory, found from this file's path.
func dir(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("drivertest: cannot locate the package directory")
	}
	return filepath.Dir(file)
}

// built caches the fixture per test binary.
type built struct {
	once sync.Once
	bin  []byte
	err  string
}

var openAI built //nolint:gochecknoglobals // one build per test binary

// BuildOpenAI builds testdata/openai-driver (Go, GOOS=wasip1, c-shared),
// gives it its cabi_realloc (addRealloc), and wraps it as a murmur driver
// component with jco and the preview-1 reactor adapter. It skips t when go,
// node or jco is missing (fails under CI=1), as componenttest.Available.
// The build runs once per test binary.
func BuildOpenAI(t testing.TB) []byte {
	t.Helper()
	componenttest.Available(t)
	if _, err := exec.LookPath("go"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("go is missing")
		}
		t.Skip("go is missing")
	}
	openAI.once.Do(func() { openAI.bin, openAI.err = buildOpenAI(dir(t)) })
	if openAI.err != "" {
		t.Fatal(openAI.err)
	}
	return openAI.bin
}

func buildOpenAI(pkg string) ([]byte, string) {
	tmp, err := os.MkdirTemp("", "drivertest")
	if err != nil {
		return nil, err.Error()
	}
	defer os.RemoveAll(tmp)
	core := filepath.Join(tmp, "core.wasm")
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", core, ".")
	cmd.Dir = filepath.Join(pkg, "testdata", "openai-driver")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GOFLAGS=-mod=mod", "GOWORK=off")
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, "go build openai-driver: " + err.Error() + "\n" + string(b)
	}
	raw, err := os.ReadFile(core)
	if err != nil {
		return nil, err.Error()
	}
	patched, err := addRealloc(raw)
	if err != nil {
		return nil, "openai-driver: " + err.Error()
	}
	if err := os.WriteFile(core, patched, 0o644); err != nil {
		return nil, err.Error()
	}
	out := filepath.Join(tmp, "driver.wasm")
	td := filepath.Join(pkg, "..", "..", "sandbox", "component", "testdata")
	node := exec.Command("node", "build.mjs", core, filepath.Join(pkg, "testdata", "driver.wit"), "driver", out, "reactor")
	node.Dir = td
	if b, err := node.CombinedOutput(); err != nil {
		return nil, "jco: " + err.Error() + "\n" + string(b)
	}
	bin, err := os.ReadFile(out)
	if err != nil {
		return nil, err.Error()
	}
	return bin, ""
}

// Compile decodes bin and compiles it for murmur's driver world on an
// engine of its own, closed when t ends.
func Compile(t testing.TB, bin []byte) *component.Component {
	t.Helper()
	ctx := context.Background()
	e, err := sandbox.NewEngine(ctx, sandbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close(ctx) })
	b, err := component.Decode(bin)
	if err != nil {
		t.Fatal(err)
	}
	c, err := component.Compile(ctx, e.Runtime(), b, component.WorldDriver)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
