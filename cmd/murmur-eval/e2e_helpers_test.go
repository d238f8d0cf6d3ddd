package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/internal/parquettest"
)

// The end-to-end tests build the real murmur-eval binary and the WASM tools
// once per test binary, into buildDir, and exec them on temporary copies of
// the capsules, so they never touch the repository's example folders.

// buildDir holds what the e2e tests build: the binary, the WASM tools, the
// shared compiled-code cache. TestMain creates and removes it.
var buildDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "murmur-eval-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: temp dir:", err)
		os.Exit(1)
	}
	buildDir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// moduleRoot is the repository root, two folders above this package.
func moduleRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatalf("module root: %v", err)
	}
	return root
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// e2eBinary skips the test under -short and returns the murmur-eval binary,
// built once with `go build` from this package.
func e2eBinary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test: skipped under -short")
	}
	binOnce.Do(func() {
		binPath = filepath.Join(buildDir, "murmur-eval")
		// As `go build` on a default setup: the checkout's revision is
		// the version (-buildvcs=auto wins over a GOFLAGS=-buildvcs=false).
		binErr = goBuild(".", nil, "-buildvcs=auto", "-o", binPath, ".")
	})
	if binErr != nil {
		t.Fatalf("build murmur-eval: %v", binErr)
	}
	return binPath
}

var (
	toolMu    sync.Mutex
	toolOnces = map[string]*toolBuild{}
)

type toolBuild struct {
	once sync.Once
	path string
	err  error
}

// wasmTool builds the Go package pkg (relative to the module root, e.g.
// "./examples/quickstart/tools/calc") as a WASI preview 1 command module,
// once per test binary, and returns the module's path.
func wasmTool(t testing.TB, pkg string) string {
	t.Helper()
	toolMu.Lock()
	b := toolOnces[pkg]
	if b == nil {
		b = &toolBuild{}
		toolOnces[pkg] = b
	}
	toolMu.Unlock()
	b.once.Do(func() {
		b.path = filepath.Join(buildDir, "wasm", strings.NewReplacer("/", "_", ".", "_").Replace(pkg)+".wasm")
		b.err = goBuild(moduleRoot(t), []string{"GOOS=wasip1", "GOARCH=wasm"}, "-o", b.path, pkg)
	})
	if b.err != nil {
		t.Fatalf("build %s for wasip1: %v", pkg, b.err)
	}
	return b.path
}

// goBuild runs `go build args...` in dir with extra environment variables.
func goBuild(dir string, extraEnv []string, args ...string) error {
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), extraEnv...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// copyCapsule copies the capsule folder src (relative to the module root)
// into a new temporary folder, leaving out what `make quickstart` generates
// (the project store, the lock, built .wasm files) so that the copy starts
// as a fresh checkout does. It returns the copy's path.
func copyCapsule(t testing.TB, src string) string {
	t.Helper()
	from := filepath.Join(moduleRoot(t), src)
	to := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		switch {
		case rel == ".murmur" || rel == "murmur.lock":
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		case d.IsDir():
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		case strings.HasSuffix(p, ".wasm"):
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy capsule %s: %v", src, err)
	}
	return to
}

// installTool does for one tool what the Makefile's quickstart target does:
// the tool's Go package pkg is built into <capsule>/tools/<name>/<name>.wasm
// and the folder packed into the capsule's project store.
func installTool(t testing.TB, capsuleDir, name, pkg string) {
	t.Helper()
	wasm, err := os.ReadFile(wasmTool(t, pkg))
	if err != nil {
		t.Fatal(err)
	}
	toolDir := filepath.Join(capsuleDir, "tools", name)
	if err := os.WriteFile(filepath.Join(toolDir, name+".wasm"), wasm, 0o755); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, "pack", toolDir, "--store", filepath.Join(capsuleDir, ".murmur", "artifacts"))
	if r.code != 0 {
		t.Fatalf("murmur-eval pack %s: exit %d\nstderr:\n%s", toolDir, r.code, r.stderr)
	}
}

// quickstart returns a ready-to-run copy of examples/quickstart: tools
// built and packed into its project store.
func quickstart(t testing.TB) string {
	t.Helper()
	e2eBinary(t)
	dir := copyCapsule(t, "examples/quickstart")
	for _, tool := range []string{"calc", "notes"} {
		installTool(t, dir, tool, "./examples/quickstart/tools/"+tool)
	}
	return dir
}

// result is what one murmur-eval process did.
type result struct {
	code           int
	stdout, stderr string
	elapsed        time.Duration
}

// command prepares murmur-eval with args in a temporary working folder, with
// HOME and XDG_CACHE_HOME pointing at empty temporary folders (so no global
// artifact store leaks in), no MURMUR_EVAL_* variables, and a compiled-code
// cache shared by the tests of this binary unless args set --cache-dir.
func command(ctx context.Context, t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	if len(args) == 0 || !slices.Contains([]string{"pack", "diff", "show", "merge", "report"}, args[0]) {
		args = append(args, "--cache-dir", filepath.Join(buildDir, "wazero-cache"))
	}
	return plainCommand(ctx, t, args...)
}

// plainCommand is command with exactly args.
func plainCommand(ctx context.Context, t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	bin := e2eBinary(t)
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, ".cache")}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || k == "XDG_CACHE_HOME" || strings.HasPrefix(k, "MURMUR_EVAL_") {
			continue
		}
		env = append(env, kv)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = env
	return cmd
}

// invocation is how an end-to-end test runs one murmur-eval process:
// runE2E's options. The zero value is runBinary's: command's environment
// and a fresh working folder, bounded to two minutes.
type invocation struct {
	env     []string      // KEY=VALUE pairs added to command's environment
	dir     string        // the working folder; "" for a fresh one
	timeout time.Duration // how long the process may run; 0 for 2 minutes
	plain   bool          // exactly the args given: no --cache-dir added
}

// runOption sets one thing of an invocation.
type runOption func(*invocation)

// withEnv adds environment variables (KEY=VALUE) to the process's.
func withEnv(kv ...string) runOption {
	return func(i *invocation) { i.env = append(i.env, kv...) }
}

// inDir runs the process in dir (a project folder, as `mur eval run` is
// run there).
func inDir(dir string) runOption { return func(i *invocation) { i.dir = dir } }

// within bounds the process's run to d.
func within(d time.Duration) runOption { return func(i *invocation) { i.timeout = d } }

// plainArgs passes the args as they are: command adds --cache-dir to what
// it takes for a run.
func plainArgs() runOption { return func(i *invocation) { i.plain = true } }

// newCommand is command with the invocation's options applied.
func newCommand(ctx context.Context, t testing.TB, args []string, opts ...runOption) *exec.Cmd {
	t.Helper()
	var inv invocation
	for _, o := range opts {
		o(&inv)
	}
	var cmd *exec.Cmd
	if inv.plain {
		cmd = plainCommand(ctx, t, args...)
	} else {
		cmd = command(ctx, t, args...)
	}
	cmd.Env = append(cmd.Env, inv.env...)
	if inv.dir != "" {
		cmd.Dir = inv.dir
	}
	return cmd
}

// runE2E runs murmur-eval with args and opts and waits for it. The test
// fails if the process could not run or did not exit on its own.
func runE2E(t testing.TB, args []string, opts ...runOption) (result, *os.ProcessState) {
	t.Helper()
	inv := invocation{timeout: 2 * time.Minute}
	for _, o := range opts {
		o(&inv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), inv.timeout)
	defer cancel()
	cmd := newCommand(ctx, t, args, opts...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr) && exitErr.Exited():
		r.code = exitErr.ExitCode()
	default:
		t.Fatalf("murmur-eval %s: %v (after %s)\nstderr:\n%s", strings.Join(args, " "), err, r.elapsed, r.stderr)
	}
	return r, cmd.ProcessState
}

// runBinary runs murmur-eval with args (see command) and waits for it.
func runBinary(t testing.TB, args ...string) result {
	t.Helper()
	r, _ := runE2E(t, args)
	return r
}

// fixture is a capsule folder set up for runs: its dataset and the
// recordings --replay serves, by default the tests' layout (cases.jsonl
// and recordings/ in the capsule folder), and the options of every run.
type fixture struct {
	t       testing.TB
	dir     string
	dataset string
	replay  string   // "" runs without --replay
	flags   []string // flags of every run, after --out
	opts    []runOption
}

// newFixture is the fixture of the capsule folder dir in the tests'
// layout.
func newFixture(t testing.TB, dir string) *fixture {
	return &fixture{t: t, dir: dir, dataset: filepath.Join(dir, "cases.jsonl"), replay: filepath.Join(dir, "recordings")}
}

// live is the fixture without --replay: its model turns come from the
// capsule's endpoint.
func (f *fixture) live() *fixture {
	g := *f
	g.replay = ""
	return &g
}

// withData is the fixture with another dataset and recordings folder.
func (f *fixture) withData(dataset, replay string) *fixture {
	g := *f
	g.dataset, g.replay = dataset, replay
	return &g
}

// withFlags is the fixture with flags added to every run's.
func (f *fixture) withFlags(flags ...string) *fixture {
	g := *f
	g.flags = append(slices.Clip(f.flags), flags...)
	return &g
}

// with is the fixture with opts added to every run's.
func (f *fixture) with(opts ...runOption) *fixture {
	g := *f
	g.opts = append(slices.Clip(f.opts), opts...)
	return &g
}

// writeCases writes the fixture's dataset, one JSON line each.
func (f *fixture) writeCases(lines ...string) *fixture {
	f.t.Helper()
	if err := os.WriteFile(f.dataset, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		f.t.Fatal(err)
	}
	return f
}

// args are a run's arguments: the capsule, its dataset, --replay, --out
// out, the fixture's flags, then extra.
func (f *fixture) args(out string, extra ...string) []string {
	return f.argsFor("--out", out, extra...)
}

// argsFor is args with the run folder given by flag (--out, or --resume
// for the run to finish).
func (f *fixture) argsFor(flag, out string, extra ...string) []string {
	args := []string{f.dir, "--dataset", f.dataset}
	if f.replay != "" {
		args = append(args, "--replay", f.replay)
	}
	args = append(append(args, flag, out), f.flags...)
	return append(args, extra...)
}

// newOut is a new run folder's path, in a folder the run's unprivileged
// tools reach.
func (f *fixture) newOut() string { return filepath.Join(reachableTempDir(f.t), "run") }

// run runs the fixture's cases into a new --out folder, with extra flags.
// It returns the run folder.
func (f *fixture) run(extra ...string) (string, result) {
	f.t.Helper()
	out := f.newOut()
	return out, f.runInto(out, extra...)
}

// runInto runs the fixture's cases into out (a new run folder, or the
// one --resume finishes).
func (f *fixture) runInto(out string, extra ...string) result {
	f.t.Helper()
	r, _ := runE2E(f.t, f.args(out, extra...), f.opts...)
	return r
}

// resume runs --resume on the run folder out, with extra flags.
func (f *fixture) resume(out string, extra ...string) result {
	f.t.Helper()
	r, _ := runE2E(f.t, f.argsFor("--resume", out, extra...), f.opts...)
	return r
}

// start prepares a run into out that the test drives itself (to signal
// it, or read its output as it comes), bounded by ctx.
func (f *fixture) start(ctx context.Context, out string, extra ...string) *exec.Cmd {
	f.t.Helper()
	return newCommand(ctx, f.t, f.args(out, extra...), f.opts...)
}

// await waits until cond, a check of the state the run cmd leaves on disk
// (its journal's lines, its session folders, its mounts), holds: the
// state is the signal, checked every few milliseconds. When it does not
// hold within timeout, the run is killed and the test fails with what it
// waited for and the run's stderr (nil when not captured).
func await(t testing.TB, cmd *exec.Cmd, stderr fmt.Stringer, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			_ = cmd.Process.Kill()
			msg := ""
			if stderr != nil {
				msg = "\nstderr:\n" + stderr.String()
			}
			t.Fatalf("%s: not within %s%s", what, timeout, msg)
		case <-tick.C:
		}
	}
}

// resultsByCase reads a run folder's results.parquet (with arrow-go) by
// case_id.
func resultsByCase(t testing.TB, out string) map[string]map[string]any {
	t.Helper()
	return rowsByCase(t, readParquet(t, filepath.Join(out, "results.parquet")))
}

// hasCode reports whether murmur-eval printed an error with code.
func hasCode(stderr, code string) bool { return strings.Contains(stderr, "error["+code+"]") }

// readFile is the content of the file at path.
func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// editFile replaces old with new in path, failing when old is absent.
func editFile(t testing.TB, path, old, new string) {
	t.Helper()
	data := readFile(t, path)
	if !strings.Contains(data, old) {
		t.Fatalf("%s does not hold %q", path, old)
	}
	writeFile(t, path, strings.Replace(data, old, new, 1))
}

// writeFile writes text to path, creating its folder.
func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// reachableTempDir is t.TempDir opened to others (0755, and its parent):
// a run's shell tools and expected checks run as an unprivileged user when
// the tests run as root, and must reach the run folder. The path keeps
// t.TempDir's length (replayed token estimates count the session path).
func reachableTempDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// column is what a reader sees of one Parquet column (a local copy of
// parquettest.Column, so tests can write it unkeyed).
type column struct {
	Name     string
	Type     string // arrow.DataType.String(), e.g. "timestamp[ms, tz=UTC]"
	Nullable bool
}

// table is a Parquet file as arrow-go decodes it: rows by column name, to
// string, int32, int64, float64, time.Time or nil.
type table struct {
	Columns []column
	Rows    []map[string]any
}

// readParquet decodes the file at path with apache/arrow-go, a reader
// independent of murmur-eval's writer.
func readParquet(t testing.TB, path string) table {
	t.Helper()
	d := parquettest.Read(t, path)
	tbl := table{Rows: d.Maps()}
	for _, c := range d.Columns {
		tbl.Columns = append(tbl.Columns, column(c))
	}
	return tbl
}

// rowsByCase indexes results rows by case_id, failing on a duplicate.
func rowsByCase(t testing.TB, tbl table) map[string]map[string]any {
	t.Helper()
	m := map[string]map[string]any{}
	for _, r := range tbl.Rows {
		id, _ := r["case_id"].(string)
		if _, dup := m[id]; dup {
			t.Errorf("results.parquet: case_id %q has more than one row", id)
		}
		m[id] = r
	}
	return m
}

// readLines returns the lines of a JSONL file, without line ends.
func readLines(t testing.TB, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return lines
}

// traceEvent is the part of a trace.jsonl line the tests look at.
type traceEvent struct {
	EventType      string  `json:"event_type"`
	SessionID      string  `json:"session_id"`
	Timestamp      int64   `json:"timestamp"`
	Turn           *int32  `json:"turn"`
	ToolName       *string `json:"tool_name"`
	TotalTurns     int32   `json:"total_turns"`
	TotalInput     int64   `json:"total_input_tokens"`
	TotalOutput    int64   `json:"total_output_tokens"`
	TotalToolCalls int32   `json:"total_tool_calls"`
	ExitStatus     string  `json:"exit_status"`
}

func parseEvent(t testing.TB, line string) traceEvent {
	t.Helper()
	var e traceEvent
	if err := json.Unmarshal([]byte(line), &e); err != nil {
		t.Fatalf("trace line %q: %v", line, err)
	}
	return e
}

// sessionEnd returns the trace's last line parsed, failing unless it is a
// session_end.
func sessionEnd(t testing.TB, lines []string) traceEvent {
	t.Helper()
	// The last session_end, as `mur trace` reads it: murmur ends a task's
	// trace with task_end, and a failed loop's fallback session_end comes
	// after that.
	for i := len(lines) - 1; i >= 0; i-- {
		if e := parseEvent(t, lines[i]); e.EventType == "session_end" {
			return e
		}
	}
	t.Fatalf("trace has no session_end among its %d lines", len(lines))
	return traceEvent{}
}

var plainID = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// recordingPath is where --replay DIR keeps the recording of caseID.
func recordingPath(dir, caseID string) string {
	if plainID.MatchString(caseID) && caseID != "." && caseID != ".." {
		return filepath.Join(dir, caseID+".jsonl")
	}
	sum := sha256.Sum256([]byte(caseID))
	return filepath.Join(dir, "sha256-"+hex.EncodeToString(sum[:])+".jsonl")
}

// datasetIDs returns the case ids of a dataset file in order.
func datasetIDs(t testing.TB, path string) []string {
	t.Helper()
	var ids []string
	for _, l := range readLines(t, path) {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var c struct {
			ID string `json:"case_id"`
		}
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		ids = append(ids, c.ID)
	}
	return ids
}

// The Parquet contract of docs/output-columns.md: names, types and order.
var (
	resultsColumns = []column{
		{"run_id", "utf8", false}, {"case_id", "utf8", false}, {"epoch", "int32", false},
		{"session_id", "utf8", false}, {"status", "utf8", false},
		{"exit_status", "utf8", true}, {"error_code", "utf8", true}, {"error_stage", "utf8", true},
		{"error_message", "utf8", true},
		{"turns", "int32", false}, {"input_tokens", "int64", false}, {"output_tokens", "int64", false},
		{"tool_calls", "int32", false}, {"started_at", "timestamp[ms, tz=UTC]", false},
		{"duration_ms", "float64", false},
		{"resolve_ms", "float64", true}, {"verify_ms", "float64", true}, {"stage_ms", "float64", true},
		{"contain_ms", "float64", true}, {"launch_ms", "float64", true}, {"loop_ms", "float64", true},
		{"report_ms", "float64", true},
		{"capsule_name", "utf8", false}, {"capsule_version", "utf8", false}, {"model", "utf8", true},
		{"session_dir", "utf8", false},
		{"inference_retries", "int32", false}, {"replay_divergences", "int32", false},
		{"replay_first_divergent_turn", "int32", true}, {"containment_achieved", "utf8", false},
		{"attempt", "int32", false}, {"reopens", "int32", false},
		{"workspace_diff_bytes", "int64", true},
		{"provider_input_tokens", "int64", true}, {"provider_output_tokens", "int64", true},
		{"murmur_overall", "utf8", true}, {"murmur_difference", "utf8", true},
		{"cache_hits", "int32", false}, {"cache_misses", "int32", false},
		{"variant", "utf8", true}, {"cost_usd", "float64", true}, {"cost_estimated", "bool", false},
	}
	eventsColumns = []column{
		{"run_id", "utf8", false}, {"case_id", "utf8", false}, {"epoch", "int32", false},
		{"session_id", "utf8", false}, {"seq", "int32", false},
		{"timestamp", "timestamp[ms, tz=UTC]", false}, {"event_type", "utf8", false},
		{"turn", "int32", true}, {"tool_name", "utf8", true}, {"event_json", "utf8", false},
		{"attempt", "int32", false}, {"variant", "utf8", true}, {"cost_usd", "float64", true},
	}
	stageColumns = []string{"resolve_ms", "verify_ms", "stage_ms", "contain_ms", "launch_ms", "loop_ms", "report_ms"}
)

// useEndpoint points the capsule in dir (a quickstart copy) at a model
// server: its inference.endpoint becomes url.
func useEndpoint(t testing.TB, dir, url string) {
	t.Helper()
	manifest := filepath.Join(dir, "murmur.yaml")
	yaml, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	yaml = []byte(strings.Replace(string(yaml), "endpoint: https://api.anthropic.com", "endpoint: "+url, 1))
	if err := os.WriteFile(manifest, yaml, 0o644); err != nil {
		t.Fatal(err)
	}
}

// shellCapsuleManifest is the manifest of a capsule named name whose model is
// Anthropic's (through murmur's anthropic driver, three turns), followed by
// rest (its capabilities and the rest).
func shellCapsuleManifest(name, rest string) string {
	return "name: " + name + `
version: 0.1.0
inference:
  transport: http
  endpoint: https://api.anthropic.com
  model: claude-sonnet-4-5
  driver:
    artifact: murmur-driver-anthropic
  max_turns: 3
` + rest
}
