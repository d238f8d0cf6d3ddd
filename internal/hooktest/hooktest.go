// Package hooktest builds the test hook (./guest, a wasip1 command module
// whose behaviour follows its name) for the tests of hooks, the loop and
// the end-to-end tests, and fills a wazero compilation cache with it so
// that tests built with -race only load it (wazero's compiler takes
// minutes for a Go guest under the race detector).
package hooktest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/murmur-nexus/murmur-eval/sandbox"
)

var build struct { //nolint:gochecknoglobals // what the test binary builds once, shared by its tests
	once     sync.Once
	wasm     string // the built guest
	cacheDir string
	err      error
	skip     string
}

// Wasm returns the path of the built test hook module.
func Wasm(tb testing.TB) string {
	tb.Helper()
	build.once.Do(buildGuest)
	if build.skip != "" {
		tb.Skip(build.skip)
	}
	if build.err != nil {
		tb.Fatal(build.err)
	}
	return build.wasm
}

// CacheDir returns the compilation cache holding the test hook.
func CacheDir(tb testing.TB) string {
	tb.Helper()
	Wasm(tb)
	return build.cacheDir
}

var shared struct { //nolint:gochecknoglobals // the engine and module the test binary compiles once, shared by its tests
	once   sync.Once
	engine *sandbox.Engine
	module *sandbox.Module
	err    error
}

// Engine returns the test binary's one engine, holding the test hook
// compiled once (loading it from the cache takes seconds under -race). It
// is never closed: it lives as long as the test binary.
func Engine(tb testing.TB) *sandbox.Engine {
	tb.Helper()
	wasm := Wasm(tb)
	shared.once.Do(func() {
		ctx := context.Background()
		shared.engine, shared.err = sandbox.NewEngine(ctx, sandbox.Config{CacheDir: build.cacheDir})
		if shared.err != nil {
			return
		}
		var b []byte
		if b, shared.err = os.ReadFile(wasm); shared.err == nil {
			shared.module, shared.err = shared.engine.Compile(ctx, "test-hook", b)
		}
	})
	if shared.err != nil {
		tb.Fatal(shared.err)
	}
	return shared.engine
}

// Module returns the test hook compiled on Engine's engine. A hook's
// behaviour follows the name it is run under (its argv[0], the hook's
// name), not the module, so every test hook shares this one module.
func Module(tb testing.TB) *sandbox.Module {
	tb.Helper()
	Engine(tb)
	return shared.module
}

// moduleRoot finds the module's root from this package's source folder.
func moduleRoot() (string, error) {
	_, file, _, ok := goruntime.Caller(0)
	if !ok {
		return "", fmt.Errorf("hooktest: cannot locate its source")
	}
	return filepath.Abs(filepath.Join(filepath.Dir(file), "..", ".."))
}

func buildGuest() {
	goBin, err := exec.LookPath("go")
	if err != nil {
		build.skip = "go is not on PATH: cannot build the wasip1 test hook"
		return
	}
	root, err := moduleRoot()
	if err != nil {
		build.err = err
		return
	}
	uc, err := os.UserCacheDir()
	if err != nil {
		uc = os.TempDir()
	}
	base := filepath.Join(uc, "murmur-eval", "hooktest")
	build.cacheDir = filepath.Join(base, "wazero")
	build.wasm = filepath.Join(base, "hook.wasm")
	if build.err = os.MkdirAll(base, 0o755); build.err != nil {
		return
	}
	// Built under a name of its own, then renamed: test binaries of several
	// packages may build it at once.
	tmp := filepath.Join(base, fmt.Sprintf("hook-%d.wasm", os.Getpid()))
	if build.err = run(root, goBin, []string{"GOOS=wasip1", "GOARCH=wasm"}, "build", "-o", tmp, "./internal/hooktest/guest"); build.err != nil {
		return
	}
	if build.err = os.Rename(tmp, build.wasm); build.err != nil {
		return
	}
	ver, err := wazeroCacheVersion(base)
	if err != nil {
		build.err = err
		return
	}
	helper := filepath.Join(base, fmt.Sprintf("precompile-%d", os.Getpid()))
	defer os.Remove(helper)
	ldflags := "-ldflags=-X=github.com/tetratelabs/wazero/internal/version.version=" + ver
	if build.err = run(root, goBin, nil, "build", ldflags, "-o", helper, "./sandbox/testdata/precompile"); build.err != nil {
		return
	}
	build.err = run(root, helper, nil, build.cacheDir, build.wasm)
}

// wazeroCacheVersion is the version wazero names its cache folders after
// in this process (a test binary says "dev"); the precompile helper is
// stamped with it so its entries are the ones this process looks up.
func wazeroCacheVersion(base string) (string, error) {
	dir, err := os.MkdirTemp(base, "version-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	c, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		return "", err
	}
	_ = c.Close(context.Background())
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) != 1 {
		return "", fmt.Errorf("reading wazero cache layout in %s: %v (%d entries)", dir, err, len(ents))
	}
	name := strings.TrimPrefix(ents[0].Name(), "wazero-")
	return strings.TrimSuffix(name, "-"+goruntime.GOARCH+"-"+goruntime.GOOS), nil
}

func run(dir, bin string, env []string, args ...string) error {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %v: %v\n%s", filepath.Base(bin), args, err, stderr.String())
	}
	return nil
}
