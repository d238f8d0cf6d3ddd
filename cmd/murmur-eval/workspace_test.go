package main

import (
	"archive/tar"
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/datasets/workspace"
	"github.com/murmur-nexus/murmur-eval/inference/replay"
)

// workspaceCapsule runs bash (with rm) as its one tool.
var workspaceCapsule = shellCapsuleManifest("workspace-e2e", `capabilities:
  shell:
    allow: [bash, sh, rm]
`)

// wsCase is one dataset line of the workspace tests, with the bash command
// its recording runs ("" for none).
type wsCase struct {
	id, workspace, bash string
	setup               any
	check               string
}

// workspaceDataset writes the capsule, the dataset and the recordings.
func workspaceDataset(t *testing.T, dir string, cases []wsCase) {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(workspaceCapsule), 0o644))
	must(os.MkdirAll(filepath.Join(dir, "recordings"), 0o755))
	var ds bytes.Buffer
	for _, c := range cases {
		line := map[string]any{"case_id": c.id, "task": "Fix it.", "workspace": c.workspace}
		if c.setup != nil {
			line["setup"] = c.setup
		}
		if c.check != "" {
			line["expected"] = map[string]any{"check": c.check}
		}
		b, _ := json.Marshal(line)
		ds.Write(append(b, '\n'))
		var rec bytes.Buffer
		if c.bash != "" {
			call, _ := json.Marshal(map[string]any{"stop_reason": "tool_call", "content": []any{
				map[string]any{"type": "tool_call", "id": "c1", "name": "bash", "input": map[string]any{"command": c.bash}}}})
			rec.Write(append(call, '\n'))
		}
		rec.WriteString(`{"stop_reason":"end_turn","content":[{"type":"text","text":"done"}]}` + "\n")
		must(os.WriteFile(filepath.Join(dir, "recordings", replay.FileName(c.id)), rec.Bytes(), 0o644))
	}
	must(os.WriteFile(filepath.Join(dir, "cases.jsonl"), ds.Bytes(), 0o644))
}

// dirHash hashes names, modes and contents under dir.
func dirHash(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		line := rel + " " + fi.Mode().String()
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			s := sha256.Sum256(b)
			line += " " + hex.EncodeToString(s[:])
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	s := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(s[:])
}

func tarGz(t *testing.T, path string, names ...string) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, n := range names {
		body := "content of " + n + "\n"
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runWorkspace runs the dataset in dir into out with extra environment.
func runWorkspace(t *testing.T, dir, out string, env []string, extra ...string) result {
	t.Helper()
	f := newFixture(t, dir).with(withEnv(env...), within(3*time.Minute))
	r, state := runE2E(t, f.args(out, append([]string{"--workers", "2", "--timeout", "60s", "--check-timeout", "30s"}, extra...)...), f.opts...)
	if ru, ok := state.SysUsage().(*syscall.Rusage); ok {
		t.Logf("peak RSS %d MiB, CPU %s user %s system", ru.Maxrss>>10,
			time.Duration(ru.Utime.Nano()).Round(time.Millisecond), time.Duration(ru.Stime.Nano()).Round(time.Millisecond))
	}
	return r
}

// TestWorkspaceIsolation: cases share one workspace folder (and a tar.gz);
// one deletes and rewrites files and appends to one in place through its
// bash tool, the other reads the original, over two epochs and with the
// copy forced; setups run before the agent, a failing one is E-EVL-062
// with logs/setup.log; a hostile archive is E-EVL-060; the source is
// byte-identical afterwards; the diff and its column say what changed; a
// --resume of the finished run keeps it all.
func TestWorkspaceIsolation(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	e2eBinary(t)
	dir := t.TempDir()
	ws := filepath.Join(dir, "repo")
	for name, body := range map[string]string{"a.txt": "original\n", "d/b.txt": "beta\n", "d/e/c.txt": "gamma\n"} {
		p := filepath.Join(ws, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tarGz(t, filepath.Join(dir, "repo.tar.gz"), "x.txt", "y/z.txt")
	tarGz(t, filepath.Join(dir, "evil.tar.gz"), "ok.txt", "../escape.txt")
	workspaceDataset(t, dir, []wsCase{
		{id: "rewrite", workspace: "repo", bash: "rm a.txt && echo changed > a.txt && echo more >> d/b.txt && rm -r d/e",
			check: "grep -qx changed a.txt && grep -qx more d/b.txt && test ! -e d/e"},
		{id: "reader", workspace: "repo", check: "grep -qx original a.txt && test \"$(cat d/b.txt)\" = beta && grep -qx gamma d/e/c.txt"},
		{id: "archive", workspace: "repo.tar.gz", bash: "echo new > x.txt", check: "grep -qx new x.txt && grep -q 'content of y/z.txt' y/z.txt"},
		{id: "setup-ok", workspace: "repo", setup: "echo preparing; echo ready > .ready", check: "grep -qx ready .ready"},
		{id: "setup-fails", workspace: "repo", setup: map[string]any{"command": "echo boom; exit 3", "timeout_seconds": 20}},
		{id: "hostile", workspace: "evil.tar.gz"},
	})
	before := sourcesHash(t, dir)
	// A first run writes the capsule's murmur.lock, which --resume would
	// see as a change: write it now.
	runWorkspace(t, dir, filepath.Join(reachableTempDir(t), "warm-up"), nil)
	out := filepath.Join(reachableTempDir(t), "run")
	res := runWorkspace(t, dir, out, []string{workspace.CloneEnv + "=copy"}, "--epochs", "2")
	t.Logf("exit %d\nstderr:\n%s", res.code, res.stderr)

	if got := sourcesHash(t, dir); got != before {
		t.Error("the workspace sources changed")
	}
	tbl := readParquet(t, filepath.Join(out, "results.parquet"))
	if len(tbl.Rows) != 12 {
		t.Fatalf("%d rows, want 12 (6 cases, 2 epochs)", len(tbl.Rows))
	}
	want := map[string]struct{ status, code string }{
		"rewrite": {"passed", ""}, "reader": {"passed", ""}, "archive": {"passed", ""}, "setup-ok": {"passed", ""},
		"setup-fails": {"error", "E-EVL-062"}, "hostile": {"error", "E-EVL-060"},
	}
	for _, row := range tbl.Rows {
		id := fmt.Sprint(row["case_id"])
		w := want[id]
		code := ""
		if row["error_code"] != nil {
			code = fmt.Sprint(row["error_code"])
		}
		if row["status"] != w.status || code != w.code {
			t.Errorf("%s epoch %v: status %v code %q (%v), want %s %q", id, row["epoch"], row["status"], code, row["error_message"], w.status, w.code)
		}
		sdir := filepath.Join(out, filepath.FromSlash(fmt.Sprint(row["session_dir"])))
		switch id {
		case "rewrite":
			diff, err := os.ReadFile(filepath.Join(sdir, workspace.DiffFile))
			if err != nil || !strings.Contains(string(diff), "-original\n+changed\n") || !strings.Contains(string(diff), "+more\n") ||
				!strings.Contains(string(diff), "--- a/d/e/c.txt\n+++ /dev/null\n") {
				t.Errorf("rewrite: workspace.diff %q (%v)", diff, err)
			}
			if n, ok := row["workspace_diff_bytes"].(int64); !ok || n != int64(len(diff)) {
				t.Errorf("rewrite: workspace_diff_bytes %v, want %d", row["workspace_diff_bytes"], len(diff))
			}
		case "reader":
			if n, ok := row["workspace_diff_bytes"].(int64); !ok || n != 0 {
				t.Errorf("reader: workspace_diff_bytes %v, want 0", row["workspace_diff_bytes"])
			}
		case "setup-fails":
			log, err := os.ReadFile(filepath.Join(sdir, "logs", "setup.log"))
			if err != nil || !strings.Contains(string(log), "boom\n") || !strings.Contains(string(log), "exited with status 3") {
				t.Errorf("setup-fails: setup.log %q (%v)", log, err)
			}
			if _, err := os.Stat(filepath.Join(sdir, "trace.jsonl")); err == nil {
				t.Error("setup-fails: the agent started after a failed setup")
			}
		case "hostile":
			if _, err := os.Stat(filepath.Join(out, workspace.DirName, "escape.txt")); err == nil {
				t.Error("hostile: an entry landed outside its base")
			}
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(out), "escape.txt")); err == nil {
		t.Error("the hostile archive wrote outside the run folder")
	}
	bases, _ := os.ReadDir(filepath.Join(out, workspace.DirName))
	if len(bases) != 2 {
		t.Errorf("%d bases under %s, want 2 (the folder and the tar.gz, each once)", len(bases), workspace.DirName)
	}

	// --resume after a "kill" that lost the last four cases: they run
	// again from the bases (read again, once, into the same run folder).
	journal := filepath.Join(out, "journal.jsonl")
	lines := strings.SplitAfter(strings.TrimSuffix(readFile(t, journal), "\n"), "\n")
	if err := os.WriteFile(journal, []byte(strings.Join(lines[:len(lines)-4], "")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(out, "results.parquet"))
	res = runWorkspace(t, dir, out, nil, "--epochs", "2", "--resume", out)
	if !strings.Contains(res.stderr, "4 cases to resume") {
		t.Errorf("--resume: exit %d, want 4 cases resumed\n%s", res.code, res.stderr)
	}
	after := readParquet(t, filepath.Join(out, "results.parquet")).Rows
	if len(after) != 12 {
		t.Errorf("after --resume: %d rows, want 12", len(after))
	}
	for _, row := range after {
		if w := want[fmt.Sprint(row["case_id"])]; row["status"] != w.status {
			t.Errorf("after --resume: %v epoch %v: status %v (%v), want %s", row["case_id"], row["epoch"], row["status"], row["error_message"], w.status)
		}
	}
	if got := sourcesHash(t, dir); got != before {
		t.Error("the workspace sources changed after --resume")
	}

	// A workspace edited since the run started: --resume refuses, naming
	// the inputs (the cases still to run would start from other files).
	var edited string
	filepath.WalkDir(filepath.Join(dir, "repo"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && edited == "" && d.Type().IsRegular() {
			edited = p
		}
		return nil
	})
	if err := os.WriteFile(edited, []byte("edited since the run started\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res = runWorkspace(t, dir, out, nil, "--epochs", "2", "--resume", out)
	if res.code != exitUsage || !strings.Contains(res.stderr, "changed since it started: inputs") {
		t.Errorf("--resume after a workspace edit: exit %d, want %d naming the inputs\n%s", res.code, exitUsage, res.stderr)
	}
}

// sourcesHash hashes the workspace sources of TestWorkspaceIsolation.
func sourcesHash(t *testing.T, dir string) string {
	var all []string
	for _, name := range []string{"repo", "repo.tar.gz", "evil.tar.gz"} {
		all = append(all, dirHash(t, filepath.Join(dir, name)))
	}
	return strings.Join(all, ",")
}

// TestWorkspaceForcedReflink: reflinks forced where the file system has
// none is E-IO-003 for the case, with the hint; nothing runs.
func TestWorkspaceForcedReflink(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	e2eBinary(t)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "repo"), 0o755)
	os.WriteFile(filepath.Join(dir, "repo", "a.txt"), []byte("a\n"), 0o644)
	workspaceDataset(t, dir, []wsCase{{id: "one", workspace: "repo"}})
	out := filepath.Join(reachableTempDir(t), "run")
	runWorkspace(t, dir, out, []string{workspace.CloneEnv + "=reflink"})
	row := readParquet(t, filepath.Join(out, "results.parquet")).Rows[0]
	switch row["status"] {
	case "passed":
		t.Skip("this file system has reflinks")
	case "error":
		if row["error_code"] != "E-IO-003" || !strings.Contains(fmt.Sprint(row["error_message"]), "reflink") {
			t.Errorf("forced reflink: %v %v", row["error_code"], row["error_message"])
		}
	default:
		t.Errorf("forced reflink: status %v", row["status"])
	}
}

// TestWorkspace200Cases is issue 20's acceptance run: 200 cases share one
// 5,000-file workspace, each reads a file it checks is the original,
// deletes one and rewrites another; every case passes (so each saw the
// original) and the source is byte-identical afterwards. It logs the
// Stage stage's per-case times (BENCHMARKS.md). Set MURMUR_EVAL_E2E_BIG=1
// to run it (about a minute on 2 cores with --out on tmpfs:
// MURMUR_EVAL_E2E_BIG_OUT=/dev/shm).
func TestWorkspace200Cases(t *testing.T) {
	if os.Getenv("MURMUR_EVAL_E2E_BIG") == "" {
		t.Skip("set MURMUR_EVAL_E2E_BIG=1")
	}
	e2eBinary(t)
	dir := t.TempDir()
	ws := filepath.Join(dir, "repo")
	body := strings.Repeat("0123456789abcdef", 64)
	files := 5000 // MURMUR_EVAL_E2E_BIG_FILES: RSS against workspace size (BENCHMARKS.md)
	if n, err := strconv.Atoi(os.Getenv("MURMUR_EVAL_E2E_BIG_FILES")); err == nil && n >= 200 {
		files = n
	}
	for i := range files {
		p := filepath.Join(ws, fmt.Sprintf("pkg%02d", i%50), fmt.Sprintf("f%04d.txt", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(fmt.Sprintf("original %d\n%s\n", i, body)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var cases []wsCase
	for i := range 200 {
		read, del, rew := i%files, (i*7+1)%files, (i*13+2)%files
		fr := fmt.Sprintf("pkg%02d/f%04d.txt", read%50, read)
		fd := fmt.Sprintf("pkg%02d/f%04d.txt", del%50, del)
		fw := fmt.Sprintf("pkg%02d/f%04d.txt", rew%50, rew)
		cases = append(cases, wsCase{
			id:        fmt.Sprintf("case-%03d", i),
			workspace: "repo",
			bash:      fmt.Sprintf("grep -qx 'original %d' %s && grep -qx 'original %d' %s && grep -qx 'original %d' %s && echo ok > seen.txt; rm %s; echo changed > %s", read, fr, del, fd, rew, fw, fd, fw),
			check:     fmt.Sprintf("grep -qx ok seen.txt && test ! -e %s && grep -qx changed %s", fd, fw),
		})
	}
	workspaceDataset(t, dir, cases)
	// The capsule's bash also runs grep.
	os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(strings.Replace(workspaceCapsule, "[bash, sh, rm]", "[bash, sh, rm, grep]", 1)), 0o644)
	before := dirHash(t, ws)
	outRoot := reachableTempDir(t)
	if o := os.Getenv("MURMUR_EVAL_E2E_BIG_OUT"); o != "" {
		var err error
		if outRoot, err = os.MkdirTemp(o, "ws200-"); err != nil {
			t.Fatal(err)
		}
		os.Chmod(outRoot, 0o755)
		t.Cleanup(func() { os.RemoveAll(outRoot) })
	}
	out := filepath.Join(outRoot, "run")
	start := time.Now()
	var env []string // MURMUR_EVAL_E2E_BIG_CLONE: the mechanism (auto: an overlay as root)
	if m := os.Getenv("MURMUR_EVAL_E2E_BIG_CLONE"); m != "" {
		env = append(env, workspace.CloneEnv+"="+m)
	}
	keep := cmp.Or(os.Getenv("MURMUR_EVAL_E2E_BIG_KEEP"), "failed") // all: every session completed at the end
	res := runWorkspace(t, dir, out, env, "--keep-sessions", keep)
	wall := time.Since(start)
	rows := readParquet(t, filepath.Join(out, "results.parquet")).Rows
	var stage, report []float64
	for _, r := range rows {
		if r["status"] != "passed" {
			t.Errorf("%v: %v %v", r["case_id"], r["status"], r["error_message"])
		}
		if v, ok := r["stage_ms"].(float64); ok {
			stage = append(stage, v)
		}
		if v, ok := r["report_ms"].(float64); ok {
			report = append(report, v)
		}
	}
	if len(rows) != 200 {
		t.Fatalf("%d rows, want 200 (exit %d)\n%s", len(rows), res.code, res.stderr)
	}
	if dirHash(t, ws) != before {
		t.Error("the workspace source changed")
	}
	sort.Float64s(stage)
	sort.Float64s(report)
	t.Logf("200 cases in %s; stage_ms p50 %.1f p90 %.1f max %.1f", wall.Round(time.Millisecond), stage[len(stage)/2], stage[len(stage)*9/10], stage[len(stage)-1])
	if len(report) == len(rows) {
		t.Logf("report_ms (diff, check, release) p50 %.1f p90 %.1f max %.1f", report[len(report)/2], report[len(report)*9/10], report[len(report)-1])
	}
	if m := mountsUnder(t, "/proc/self/mountinfo", out); len(m) > 0 {
		t.Errorf("mounts left: %v", m)
	}
}
