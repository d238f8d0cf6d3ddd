package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// guestNames are the test tools under testdata/, each a package main built
// with GOOS=wasip1 GOARCH=wasm.
var guestNames = []string{"echo", "files", "env", "spin", "grow", "exit3", "escape", "residue"}

// testRoot holds the built guests for this test binary; TestMain removes it.
var testRoot string

// guestBuild builds the guests and fills the shared compilation cache once
// per test binary.
var guestBuild struct {
	once     sync.Once
	dir      string // built guests
	cacheDir string // compilation cache holding every guest
	err      error
	skip     string
}

func TestMain(m *testing.M) {
	// The test binary is the subprocess launcher, as murmur-eval is.
	if handled, code := LauncherMain(os.Args); handled {
		os.Exit(code)
	}
	dir, err := os.MkdirTemp("", "sandbox-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// guest returns the wasm of a test tool. The first call builds all of them
// with GOOS=wasip1 GOARCH=wasm (the go build cache makes reruns fast) and
// compiles them into the shared compilation cache with testdata/precompile,
// a separate process built without -race: under the race detector wazero's
// compiler takes minutes for a Go guest, while loading from the cache is
// quick. The cache lives in the user cache directory so later runs skip
// compiling; entries are keyed by content and wazero version, so they never
// go stale.
func guest(tb testing.TB, name string) []byte {
	tb.Helper()
	guestBuild.once.Do(buildGuests)
	if guestBuild.skip != "" {
		tb.Skip(guestBuild.skip)
	}
	if guestBuild.err != nil {
		tb.Fatal(guestBuild.err)
	}
	b, err := os.ReadFile(guestPath(name))
	if err != nil {
		tb.Fatalf("guest %q was not built: %v", name, err)
	}
	return b
}

func guestPath(name string) string {
	p := filepath.Join(guestBuild.dir, name)
	if _, err := os.Stat(p); err != nil {
		return p + ".wasm"
	}
	return p
}

func buildGuests() {
	goBin, err := exec.LookPath("go")
	if err != nil {
		guestBuild.skip = "go is not on PATH: cannot build the wasip1 test guests"
		return
	}
	guestBuild.dir = filepath.Join(testRoot, "guests")
	guestBuild.cacheDir = filepath.Join(testRoot, "cache")
	if uc, err := os.UserCacheDir(); err == nil {
		guestBuild.cacheDir = filepath.Join(uc, "murmur-eval", "sandbox-test-wazero")
	}
	args := []string{"build", "-o", guestBuild.dir + string(filepath.Separator)}
	for _, n := range guestNames {
		args = append(args, "./testdata/"+n)
	}
	if guestBuild.err = run(goBin, []string{"GOOS=wasip1", "GOARCH=wasm"}, args...); guestBuild.err != nil {
		return
	}
	// wazero namespaces cache entries by its version, which it reads from
	// build info: a test binary says "dev", a built command v1.x.y. Stamp the
	// helper with the version this binary uses, or the entries would miss.
	ver, err := wazeroCacheVersion()
	if err != nil {
		guestBuild.err = err
		return
	}
	helper := filepath.Join(testRoot, "precompile")
	ldflags := "-ldflags=-X=github.com/tetratelabs/wazero/internal/version.version=" + ver
	if guestBuild.err = run(goBin, nil, "build", ldflags, "-o", helper, "./testdata/precompile"); guestBuild.err != nil {
		return
	}
	args = []string{guestBuild.cacheDir}
	for _, n := range guestNames {
		args = append(args, guestPath(n))
	}
	guestBuild.err = run(helper, nil, args...)
}

// wazeroCacheVersion returns the version wazero names its cache
// directories after in this process.
func wazeroCacheVersion() (string, error) {
	dir, err := os.MkdirTemp(testRoot, "version-")
	if err != nil {
		return "", err
	}
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

// run runs a command with extra environment and returns its stderr on failure.
func run(bin string, env []string, args ...string) error {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %v: %v\n%s", filepath.Base(bin), args, err, stderr.String())
	}
	return nil
}

// newTestEngine returns an Engine closed at the end of the test. Unless cfg
// names one, it uses the shared compilation cache that holds every guest.
func newTestEngine(tb testing.TB, cfg Config) *Engine {
	tb.Helper()
	if cfg.CacheDir == "" {
		guest(tb, guestNames[0]) // make sure the cache is filled
		cfg.CacheDir = guestBuild.cacheDir
	}
	e, err := NewEngine(context.Background(), cfg)
	if err != nil {
		tb.Fatalf("NewEngine: %v", err)
	}
	tb.Cleanup(func() {
		if err := e.Close(context.Background()); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return e
}

// compileGuest compiles a test tool on e.
func compileGuest(tb testing.TB, e *Engine, name string) *Module {
	tb.Helper()
	m, err := e.Compile(context.Background(), name, guest(tb, name))
	if err != nil {
		tb.Fatalf("Compile(%s): %v", name, err)
	}
	return m
}

// wantCode fails the test unless err carries code.
func wantCode(tb testing.TB, err error, code string) {
	tb.Helper()
	if got := errcode.Code(err); got != code {
		tb.Fatalf("error code = %q, want %q (err: %v)", got, code, err)
	}
}

// wantKind fails the test unless err wraps kind (or no Kind when kind is "").
func wantKind(tb testing.TB, err error, kind Kind) {
	tb.Helper()
	if got := KindOf(err); got != kind {
		tb.Fatalf("KindOf(err) = %q, want %q (err: %v)", got, kind, err)
	}
	if kind != "" && !errors.Is(err, kind) {
		tb.Fatalf("errors.Is(err, %q) = false (err: %v)", kind, err)
	}
}

// wasmImport is a function import of a hand-assembled module: typ 0 is
// func(), typ 1 is func(i32).
type wasmImport struct {
	mod, name string
	typ       byte
}

// coreModule assembles a minimal core wasm module by hand: the imports, an
// optional memory of minPages exported as "memory" (minPages < 0 for none),
// and one function of type func() whose body is body (without the trailing
// end), exported as export ("" for no export).
func coreModule(imports []wasmImport, minPages int, export string, body ...byte) []byte {
	sec := func(id byte, content []byte) []byte {
		return append([]byte{id}, append(uleb(uint64(len(content))), content...)...)
	}
	name := func(s string) []byte { return append(uleb(uint64(len(s))), s...) }
	out := []byte{0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00}
	out = append(out, sec(1, []byte{0x02, 0x60, 0x00, 0x00, 0x60, 0x01, 0x7f, 0x00})...) // func(), func(i32)
	if len(imports) > 0 {
		c := uleb(uint64(len(imports)))
		for _, im := range imports {
			c = append(c, name(im.mod)...)
			c = append(c, name(im.name)...)
			c = append(c, 0x00, im.typ)
		}
		out = append(out, sec(2, c)...)
	}
	out = append(out, sec(3, []byte{0x01, 0x00})...) // one function of type 0
	if minPages >= 0 {
		out = append(out, sec(5, append([]byte{0x01, 0x00}, uleb(uint64(minPages))...))...)
	}
	var exports [][]byte
	if export != "" {
		e := append(name(export), 0x00) // a function: the one defined here
		exports = append(exports, append(e, uleb(uint64(len(imports)))...))
	}
	if minPages >= 0 {
		exports = append(exports, append(name("memory"), 0x02, 0x00))
	}
	if len(exports) > 0 {
		c := uleb(uint64(len(exports)))
		for _, e := range exports {
			c = append(c, e...)
		}
		out = append(out, sec(7, c)...)
	}
	fn := append([]byte{0x00}, body...) // no locals
	fn = append(fn, 0x0b)
	out = append(out, sec(10, append([]byte{0x01}, append(uleb(uint64(len(fn))), fn...)...))...)
	return out
}

func uleb(v uint64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}
