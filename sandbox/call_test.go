package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// toolInput is murmur's ToolInput JSON for data.
func toolInput(t testing.TB, data string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"data": data, "log_path": nil})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRunEcho(t *testing.T) {
	t.Parallel()
	e := newTestEngine(t, Config{})
	m := compileGuest(t, e, "echo")
	data := `{"query":"weather in Oslo","n":3}`
	out, err := e.Run(context.Background(), m, Call{Dir: t.TempDir(), Stdin: toolInput(t, data)})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	got := ParseToolResult(m.Name(), out)
	want := ToolResult{Status: StatusPassed, Summary: "echoed", HasSummary: true, Data: data, HasData: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseToolResult (-want +got):\n%s\nstdout: %s\nstderr: %s", diff, out.Stdout, out.Stderr)
	}
}

func TestRunSeesOnlyItsDir(t *testing.T) {
	t.Parallel()
	e := newTestEngine(t, Config{})
	m := compileGuest(t, e, "files")
	parent := t.TempDir()
	dir := filepath.Join(parent, "case-1", "work") // created by Run
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "in.txt"), []byte("staged by host"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := e.Run(context.Background(), m, Call{Dir: dir})
	if err != nil || out.ExitCode != 0 {
		t.Fatalf("Run = exit %d, %v; stderr: %s", out.ExitCode, err, out.Stderr)
	}
	var got map[string]any
	if err := json.Unmarshal(out.Stdout, &got); err != nil {
		t.Fatalf("guest output %q: %v", out.Stdout, err)
	}
	want := map[string]any{
		"in":                 "staged by host",
		"write":              "ok",
		"root":               []any{"in.txt", "out.txt", "sub"},
		"etc_passwd":         "error",
		"dotdot_rel":         "error",
		"dotdot_abs":         "error",
		"symlink_abs_create": "error",
		"symlink_abs_read":   "error",
		"symlink_rel_create": "error", // a relative link could point out of the mount
		"symlink_rel_read":   "error",
		"hardlink_create":    "error",
		"hardlink_read":      "error",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("guest's view (-want +got):\n%s", diff)
	}
	for file, content := range map[string]string{"out.txt": "written by guest", "sub/nested.txt": "nested"} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil || string(b) != content {
			t.Errorf("host %s = %q, %v; want %q", file, b, err, content)
		}
	}
	// What the guest created is readable by the tool user who runs the
	// shell tools and checks after it (0644 and 0755 whatever wazero asks).
	for name, want := range map[string]os.FileMode{"out.txt": 0o644, "sub": os.ModeDir | 0o755, "sub/nested.txt": 0o644} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Mode() != want {
			t.Errorf("host %s: mode %v, %v; want %v", name, fi.Mode(), err, want)
		}
	}
	// Nothing appeared beside the mounted directory.
	ents, _ := os.ReadDir(filepath.Dir(dir))
	if len(ents) != 1 {
		t.Errorf("parent of Dir has %d entries, want only the mounted dir", len(ents))
	}
}

func TestRunCreatesDir(t *testing.T) {
	t.Parallel()
	e := newTestEngine(t, Config{})
	m := compileGuest(t, e, "files")
	dir := filepath.Join(t.TempDir(), "not", "yet")
	if _, err := e.Run(context.Background(), m, Call{Dir: dir}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.txt")); err != nil {
		t.Errorf("guest write did not land in the created Dir: %v", err)
	}
}

// TestRunEnvIsExactlyCallEnv must not run in parallel: it sets a host
// variable to prove it does not leak.
func TestRunEnvIsExactlyCallEnv(t *testing.T) {
	t.Setenv("SANDBOX_TEST_HOST_SECRET", "must-not-leak")
	e := newTestEngine(t, Config{})
	m := compileGuest(t, e, "env")
	tests := []struct {
		name     string
		call     Call
		wantEnv  []string
		wantArgs []string
	}{
		{"given env and args", Call{Env: []string{"A=1", "B=x=y", "EMPTY="}, Args: []string{"env", "--flag"}},
			[]string{"A=1", "B=x=y", "EMPTY="}, []string{"env", "--flag"}},
		{"nothing given", Call{}, []string{}, []string{"env"}},
		{"later duplicate wins", Call{Env: []string{"A=1", "A=2"}}, []string{"A=2"}, []string{"env"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := e.Run(context.Background(), m, tt.call)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			var got struct{ Env, Args []string }
			if err := json.Unmarshal(out.Stdout, &got); err != nil {
				t.Fatalf("guest output %q: %v", out.Stdout, err)
			}
			if diff := cmp.Diff(tt.wantEnv, got.Env); diff != "" {
				t.Errorf("guest env (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantArgs, got.Args); diff != "" {
				t.Errorf("guest args (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunRejectsBadEnv(t *testing.T) {
	t.Parallel()
	e := newTestEngine(t, Config{})
	m := compileGuest(t, e, "env")
	for _, kv := range []string{"NO_EQUALS", "=value", "A=b\x00c"} {
		out, err := e.Run(context.Background(), m, Call{Env: []string{kv}})
		wantCode(t, err, errcode.Internal)
		if out != nil {
			t.Errorf("Run(%q) Output = %+v, want nil on a set-up error", kv, out)
		}
	}
}

func TestRunExitCodeIsNotAnError(t *testing.T) {
	t.Parallel()
	e := newTestEngine(t, Config{})
	m := compileGuest(t, e, "exit3")
	out, err := e.Run(context.Background(), m, Call{})
	if err != nil {
		t.Fatalf("Run: %v, want nil for proc_exit(3)", err)
	}
	if out.ExitCode != 3 || string(out.Stderr) != "boom: exiting with 3\n" || len(out.Stdout) != 0 {
		t.Errorf("Output = exit %d, stdout %q, stderr %q; want exit 3 and the message on stderr",
			out.ExitCode, out.Stdout, out.Stderr)
	}
	got := ParseToolResult("exit3", out)
	want := ToolResult{Status: StatusError, Summary: "tool 'exit3' exited with 3", HasSummary: true,
		Data: "boom: exiting with 3\n", HasData: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseToolResult (-want +got):\n%s", diff)
	}
}

func TestRunDeadlineVersusCallerContext(t *testing.T) {
	t.Parallel()
	e := newTestEngine(t, Config{})
	m := compileGuest(t, e, "spin")
	const short, long = 300 * time.Millisecond, time.Minute
	tests := []struct {
		name       string
		args       []string // spin sleep: blocked in a host call, not looping
		deadline   time.Duration
		ctxTimeout time.Duration // 0: cancel instead, after short
		code       string
		kind       Kind
		ctxErr     error
	}{
		{"tool deadline", nil, short, long, errcode.RunCapsule, ErrDeadline, nil},
		{"caller deadline", nil, 0, short, errcode.Timeout, "", context.DeadlineExceeded},
		{"caller deadline before tool deadline", nil, long, short, errcode.Timeout, "", context.DeadlineExceeded},
		{"caller cancels", nil, long, 0, errcode.Cancelled, "", context.Canceled},
		{"tool deadline while sleeping", []string{"spin", "sleep"}, short, long, errcode.RunCapsule, ErrDeadline, nil},
		{"caller cancels while sleeping", []string{"spin", "sleep"}, long, 0, errcode.Cancelled, "", context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var ctx context.Context
			var cancel context.CancelFunc
			if tt.ctxTimeout > 0 {
				ctx, cancel = context.WithTimeout(context.Background(), tt.ctxTimeout)
			} else {
				ctx, cancel = context.WithCancel(context.Background())
				time.AfterFunc(short, cancel)
			}
			defer cancel()
			start := time.Now()
			out, err := e.Run(ctx, m, Call{Deadline: tt.deadline, Args: tt.args})
			if elapsed := time.Since(start); elapsed > 30*time.Second {
				t.Errorf("Run took %v to stop a spinning guest", elapsed)
			}
			wantCode(t, err, tt.code)
			wantKind(t, err, tt.kind)
			t.Logf("err: %v", err)
			for _, target := range []error{context.DeadlineExceeded, context.Canceled} {
				if got, want := errors.Is(err, target), target == tt.ctxErr; got != want {
					t.Errorf("errors.Is(err, %v) = %v, want %v (err: %v)", target, got, want, err)
				}
			}
			// What the guest wrote before it was stopped comes back too; how
			// much it managed to write depends on the machine's load.
			if out == nil {
				t.Errorf("Output = nil, want the partial output")
			}
		})
	}
}

func TestRunAfterContextEnded(t *testing.T) {
	t.Parallel()
	e := newTestEngine(t, Config{})
	m := compileGuest(t, e, "echo")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.Run(ctx, m, Call{Stdin: toolInput(t, "x")})
	wantCode(t, err, errcode.Cancelled)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("errors.Is(err, context.Canceled) = false (err: %v)", err)
	}
}

func TestRunMemoryLimit(t *testing.T) {
	t.Parallel()
	const limit = 32 << 20
	e := newTestEngine(t, Config{MemoryLimitBytes: limit})
	m := compileGuest(t, e, "grow")
	out, err := e.Run(context.Background(), m, Call{Deadline: time.Minute})
	wantCode(t, err, errcode.RunCapsule)
	wantKind(t, err, ErrMemory)
	t.Logf("err: %v\nstderr: %.200s", err, out.Stderr)
	if out == nil || len(out.Stderr) == 0 {
		t.Errorf("Output = %+v, want the guest's out-of-memory report on stderr", out)
	}

	// The same limit leaves a small guest alone.
	echo := compileGuest(t, e, "echo")
	if _, err := e.Run(context.Background(), echo, Call{Stdin: toolInput(t, "x")}); err != nil {
		t.Errorf("echo under a %d byte limit: %v", limit, err)
	}
}

// TestRunInitialMemoryOverTheLimit: a module whose initial memory is over
// the limit compiles and fails each call with the memory limit, in the
// words murmur's store limiter uses (it is asked about the initial memory
// when the instance is created), as a component does; whether or not the
// module exports its memory.
func TestRunInitialMemoryOverTheLimit(t *testing.T) {
	t.Parallel()
	unexported := []byte("\x00asm\x01\x00\x00\x00" +
		"\x01\x04\x01\x60\x00\x00" + // type: func()
		"\x03\x02\x01\x00" + // one function
		"\x05\x03\x01\x00\x20" + // memory: min 32 pages, not exported
		"\x07\x0a\x01\x06_start\x00\x00" + // export _start only
		"\x0a\x04\x01\x02\x00\x0b") // its empty body
	const want = "tool 'tool' exceeded its configured resource limits: " +
		"linear memory growth to 2097152 bytes exceeds capabilities.limits.memory_bytes (1048576)"
	e := newTestEngine(t, Config{CacheDir: t.TempDir(), MemoryLimitBytes: 1 << 20})
	for name, wasm := range map[string][]byte{
		"exported":   coreModule(nil, 32, "_start"),
		"unexported": unexported,
	} {
		m, err := e.Compile(context.Background(), "tool", wasm)
		if err != nil {
			t.Fatalf("%s: Compile: %v", name, err)
		}
		_, err = e.Run(context.Background(), m, Call{})
		wantCode(t, err, errcode.RunCapsule)
		wantKind(t, err, ErrMemory)
		if err == nil || err.Error() != want {
			t.Errorf("%s: Run = %v, want %q", name, err, want)
		}
	}
}

// TestRunTableGrowthPastTheLimit: a preview-1 tool whose _start grows a
// table past Config.TableElements (capabilities.limits.table_elements) is
// stopped there as murmur's limiter stops it: E-RUN-001, ErrTable and
// murmur's text with the size asked for; a grow within the limit runs.
func TestRunTableGrowthPastTheLimit(t *testing.T) {
	t.Parallel()
	// _start: table.grow 0 by delta with ref.null func, dropped.
	grower := func(delta byte) []byte {
		return []byte("\x00asm\x01\x00\x00\x00" +
			"\x01\x04\x01\x60\x00\x00" + // type: func()
			"\x03\x02\x01\x00" + // one function
			"\x04\x04\x01\x70\x00\x01" + // a funcref table of 1, no maximum
			"\x07\x0a\x01\x06_start\x00\x00" +
			"\x0a\x0c\x01\x0a\x00\xd0\x70\x41" + string([]byte{delta}) + "\xfc\x0f\x00\x1a\x0b")
	}
	for _, tt := range []struct {
		limit uint32
		delta byte
		want  string // "": the call succeeds
	}{
		{10, 9, ""},
		{10, 10, "table growth to 11 elements exceeds capabilities.limits.table_elements (10)"},
		// i32.const -1: a grow by 2^32-1, past murmur's default; the size asked
		// for is counted in 64 bits, as wasmtime counts it.
		{0, 0x7f, "table growth to 4294967296 elements exceeds capabilities.limits.table_elements (100000)"},
	} {
		e := newTestEngine(t, Config{CacheDir: t.TempDir(), TableElements: tt.limit})
		m, err := e.Compile(context.Background(), "tool", grower(tt.delta))
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Run(context.Background(), m, Call{})
		if tt.want == "" {
			if err != nil {
				t.Errorf("limit %d, grow by %d: Run = %v, want nil", tt.limit, tt.delta, err)
			}
			continue
		}
		wantCode(t, err, errcode.RunCapsule)
		wantKind(t, err, ErrTable)
		if want := "tool 'tool' exceeded its configured resource limits: " + tt.want; err == nil || err.Error() != want {
			t.Errorf("limit %d, grow by %d: Run = %v, want %q", tt.limit, tt.delta, err, want)
		}
	}
}

func TestRunTrap(t *testing.T) {
	t.Parallel()
	e := newTestEngine(t, Config{CacheDir: t.TempDir()})
	m, err := e.Compile(context.Background(), "trap", coreModule(nil, -1, "_start", 0x00)) // unreachable
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	_, err = e.Run(context.Background(), m, Call{})
	wantCode(t, err, errcode.RunCapsule)
	wantKind(t, err, ErrTrap)
	t.Logf("err: %v", err)
}

func TestRunCapsOutput(t *testing.T) {
	t.Parallel()
	e := newTestEngine(t, Config{MaxOutputBytes: 64})
	m := compileGuest(t, e, "echo")
	data := string(bytes.Repeat([]byte("x"), 1000))
	out, err := e.Run(context.Background(), m, Call{Stdin: toolInput(t, data)})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(out.Stdout) != 64 || !out.StdoutTruncated || out.StderrTruncated {
		t.Errorf("Output = %d stdout bytes, truncated %v/%v; want 64, true/false",
			len(out.Stdout), out.StdoutTruncated, out.StderrTruncated)
	}
	if r := ParseToolResult("echo", out); r.Status != StatusPassed || !r.HasData {
		t.Errorf("truncated JSON parsed as %+v; want non-JSON fallback, passed with data", r)
	}
}

// TestRunHammer shares one Module among many goroutines, each call with its
// own directory and input; run it with -race.
func TestRunHammer(t *testing.T) {
	t.Parallel()
	const goroutines, calls = 32, 3
	e := newTestEngine(t, Config{})
	echo := compileGuest(t, e, "echo")
	files := compileGuest(t, e, "files")
	root := t.TempDir()
	errs := make(chan error, goroutines*calls)
	done := make(chan struct{})
	for g := range goroutines {
		go func() {
			defer func() { done <- struct{}{} }()
			for c := range calls {
				id := fmt.Sprintf("g%02d-c%d", g, c)
				errs <- hammerCall(e, echo, files, filepath.Join(root, id), id, (g+c)%2 == 0)
			}
		}()
	}
	for range goroutines {
		<-done
	}
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// hammerCall runs echo or files in dir and checks the guest saw id.
func hammerCall(e *Engine, echo, files *Module, dir, id string, useEcho bool) error {
	if useEcho {
		in, _ := json.Marshal(map[string]any{"data": id, "log_path": nil})
		out, err := e.Run(context.Background(), echo, Call{Dir: dir, Stdin: in, Deadline: time.Minute})
		if err != nil {
			return err
		}
		if r := ParseToolResult("echo", out); r.Status != StatusPassed || r.Data != id {
			return fmt.Errorf("echo %s: got %q", id, r.Text())
		}
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "in.txt"), []byte(id), 0o644); err != nil {
		return err
	}
	out, err := e.Run(context.Background(), files, Call{Dir: dir, Deadline: time.Minute})
	if err != nil {
		return err
	}
	var got struct {
		In   string
		Root []string
	}
	if err := json.Unmarshal(out.Stdout, &got); err != nil {
		return err
	}
	if got.In != id || !slices.Equal(got.Root, []string{"in.txt", "out.txt", "sub"}) {
		return fmt.Errorf("files %s: saw %s", id, out.Stdout)
	}
	return nil
}
