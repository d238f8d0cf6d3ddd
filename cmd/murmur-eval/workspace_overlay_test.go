package main

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/murmur-nexus/murmur-eval/datasets/workspace"
)

// overlayCapsule is workspaceCapsule with the commands the attacks use.
func overlayCapsule() string {
	return strings.Replace(workspaceCapsule, "[bash, sh, rm]", "[bash, sh, rm, ls, ln, cat, grep, sleep]", 1)
}

// mountsUnder lists the mount points under dir in the mount table at
// mountinfo (/proc/self/mountinfo: the host's, this test's namespace).
func mountsUnder(t *testing.T, mountinfo, dir string) []string {
	t.Helper()
	f, err := os.Open(mountinfo)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) > 4 && strings.HasPrefix(fields[4], dir+"/") {
			out = append(out, fields[4])
		}
	}
	return out
}

// overlayWorkspace writes repo/ (the workspace) under dir.
func overlayWorkspace(t *testing.T, dir string) {
	t.Helper()
	for name, body := range map[string]string{"a.txt": "original\n", "d/b.txt": "beta\n", "d/e/c.txt": "gamma\n"} {
		p := filepath.Join(dir, "repo", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWorkspaceOverlay: as root, cases sharing one workspace run on
// overlays (forced), over two epochs: one deletes, rewrites and appends
// through its bash tool, another sees the original, a third, as the
// unprivileged tool user, writes a workspace file in place and tries to
// reach the overlay's upper layer and the base, directly and through links
// planted in its session, and to write outside (Landlock on the mounted
// view), and fails; a setup command changes the overlaid workspace first. Afterwards no mount is left, the
// layers are gone, every kept session holds its final state (no overlay
// whiteout), the diff says what changed, the source is byte-identical,
// and a --resume (on overlays too) completes the run.
func TestWorkspaceOverlay(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("overlays need root")
	}
	e2eBinary(t)
	dir := t.TempDir()
	overlayWorkspace(t, dir)
	out := filepath.Join(reachableTempDir(t), "run")
	attack := strings.NewReplacer("OUT", out).Replace(`ls OUT/.overlays >/dev/null 2>&1 && echo reached > reached.txt
for f in OUT/.overlays/*/upper/a.txt OUT/.workspaces/*/a.txt; do echo x 2>/dev/null > "$f" && echo "$f" >> wrote.txt; done
ln -s OUT/.overlays up; ls up/ >/dev/null 2>&1 && echo via > via.txt
ln -s OUT/.workspaces wsl; cat wsl/*/a.txt >/dev/null 2>&1 && echo via > via-base.txt
echo x > /tmp/overlay-escape-$$ 2>/dev/null && echo escaped > esc.txt
echo more >> d/b.txt
true`)
	workspaceDataset(t, dir, []wsCase{
		{id: "rewrite", workspace: "repo", bash: "rm a.txt && echo changed > a.txt && echo more >> d/b.txt && rm -r d/e",
			check: "grep -qx changed a.txt && grep -qx more d/b.txt && test ! -e d/e"},
		{id: "reader", workspace: "repo", check: "grep -qx original a.txt && test \"$(cat d/b.txt)\" = beta && grep -qx gamma d/e/c.txt"},
		{id: "attack", workspace: "repo", bash: attack,
			check: "test ! -e reached.txt && test ! -e wrote.txt && test ! -e via.txt && test ! -e via-base.txt && test ! -e esc.txt && grep -qx more d/b.txt"},
		{id: "setup", workspace: "repo", setup: "echo ready > .ready && rm d/e/c.txt", check: "grep -qx ready .ready && test ! -e d/e/c.txt"},
	})
	if err := os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(overlayCapsule()), 0o644); err != nil {
		t.Fatal(err)
	}
	runWorkspace(t, dir, filepath.Join(reachableTempDir(t), "warm-up"), nil) // writes murmur.lock
	before := dirHash(t, filepath.Join(dir, "repo"))
	res := runWorkspace(t, dir, out, []string{workspace.CloneEnv + "=overlay"}, "--epochs", "2")
	t.Logf("exit %d\nstderr:\n%s", res.code, res.stderr)
	rows := readParquet(t, filepath.Join(out, "results.parquet")).Rows
	if len(rows) != 8 {
		t.Fatalf("%d rows, want 8", len(rows))
	}
	for _, row := range rows {
		id := fmt.Sprint(row["case_id"])
		if row["status"] != "passed" {
			t.Errorf("%s epoch %v: %v %v", id, row["epoch"], row["status"], row["error_message"])
		}
		sdir := filepath.Join(out, filepath.FromSlash(fmt.Sprint(row["session_dir"])))
		checkMaterialised(t, sdir)
		switch id {
		case "rewrite":
			if got := readFile(t, filepath.Join(sdir, "a.txt")); got != "changed\n" {
				t.Errorf("rewrite: kept a.txt %q", got)
			}
			if _, err := os.Lstat(filepath.Join(sdir, "d/e")); err == nil {
				t.Error("rewrite: kept session has d/e back")
			}
			diff := readFile(t, filepath.Join(sdir, workspace.DiffFile))
			if !strings.Contains(diff, "-original\n+changed\n") || !strings.Contains(diff, "+more\n") ||
				!strings.Contains(diff, "--- a/d/e/c.txt\n+++ /dev/null\n") {
				t.Errorf("rewrite: workspace.diff %q", diff)
			}
			if n, ok := row["workspace_diff_bytes"].(int64); !ok || n != int64(len(diff)) {
				t.Errorf("rewrite: workspace_diff_bytes %v, want %d", row["workspace_diff_bytes"], len(diff))
			}
		case "reader":
			if n, ok := row["workspace_diff_bytes"].(int64); !ok || n != 0 {
				t.Errorf("reader: workspace_diff_bytes %v, want 0", row["workspace_diff_bytes"])
			}
			for name, want := range map[string]string{"a.txt": "original\n", "d/b.txt": "beta\n", "d/e/c.txt": "gamma\n"} {
				if got := readFile(t, filepath.Join(sdir, filepath.FromSlash(name))); got != want {
					t.Errorf("reader: kept %s %q", name, got)
				}
			}
			// An overlay it was: the kept session's unchanged files are the
			// base's, linked back once the run ended (a copy has its own).
			base, _ := filepath.Glob(filepath.Join(out, workspace.DirName, "*", "a.txt"))
			if fi, err := os.Stat(filepath.Join(sdir, "a.txt")); err != nil || len(base) != 1 || !os.SameFile(fi, statOf(t, base[0])) {
				t.Errorf("reader: a.txt is not the base's (%v): no overlay?", err)
			}
		}
	}
	if m := mountsUnder(t, "/proc/self/mountinfo", out); len(m) > 0 {
		t.Errorf("mounts left on the host: %v", m)
	}
	if _, err := os.Stat(filepath.Join(out, workspace.LayersDirName)); !os.IsNotExist(err) {
		t.Errorf("%s left: %v", workspace.LayersDirName, err)
	}
	if dirHash(t, filepath.Join(dir, "repo")) != before {
		t.Error("the workspace source changed")
	}
	if fi := statOf(t, filepath.Join(out, workspace.DirName)); fi.Mode().Perm() != 0o700 {
		t.Errorf("%s is %v, want 0700 (the bases are the tool user's)", workspace.DirName, fi.Mode())
	}
	bases, _ := filepath.Glob(filepath.Join(out, workspace.DirName, "*", "a.txt"))
	if len(bases) != 1 || readFile(t, bases[0]) != "original\n" {
		t.Errorf("the base changed: %v", bases)
	}

	// --resume after losing the last two cases: they run again, on overlays.
	journal := filepath.Join(out, "journal.jsonl")
	lines := strings.SplitAfter(strings.TrimSuffix(readFile(t, journal), "\n"), "\n")
	if err := os.WriteFile(journal, []byte(strings.Join(lines[:len(lines)-2], "")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(out, "results.parquet"))
	res = runWorkspace(t, dir, out, nil, "--epochs", "2", "--resume", out)
	if !strings.Contains(res.stderr, "2 cases to resume") {
		t.Errorf("--resume: exit %d\n%s", res.code, res.stderr)
	}
	for _, row := range readParquet(t, filepath.Join(out, "results.parquet")).Rows {
		if row["status"] != "passed" {
			t.Errorf("after --resume: %v epoch %v: %v %v", row["case_id"], row["epoch"], row["status"], row["error_message"])
		}
	}
}

func statOf(t *testing.T, p string) fs.FileInfo {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// checkMaterialised fails if the kept session sdir holds an overlay mark:
// a whiteout (a 0/0 character device) or an opaque folder's attribute.
func checkMaterialised(t *testing.T, sdir string) {
	t.Helper()
	filepath.WalkDir(sdir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.Type()&fs.ModeCharDevice != 0 {
			t.Errorf("whiteout left in a kept session: %s", p)
		}
		if d.IsDir() {
			if n, err := unix.Getxattr(p, "trusted.overlay.opaque", make([]byte, 4)); err == nil && n > 0 {
				t.Errorf("opaque mark left in a kept session: %s", p)
			}
		}
		return nil
	})
}

// TestWorkspaceOverlayKill: a run killed with SIGKILL while a case's
// overlay is mounted leaves no mount in the host's table (its mounts lived
// in its own mount namespace), and a --resume of the run folder clears
// the dead run's layers and completes the case.
func TestWorkspaceOverlayKill(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("overlays need root")
	}
	e2eBinary(t)
	dir := t.TempDir()
	overlayWorkspace(t, dir)
	workspaceDataset(t, dir, []wsCase{{id: "slow", workspace: "repo", bash: "sleep 6; echo done > done.txt", check: "grep -qx done done.txt && grep -qx original a.txt"}})
	if err := os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(overlayCapsule()), 0o644); err != nil {
		t.Fatal(err)
	}
	runWorkspace(t, dir, filepath.Join(reachableTempDir(t), "warm-up"), nil)
	out := filepath.Join(reachableTempDir(t), "run")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := newFixture(t, dir).with(withEnv(workspace.CloneEnv+"=overlay")).start(ctx, out,
		"--workers", "2", "--timeout", "60s", "--check-timeout", "30s") // runWorkspace's, for --resume
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	mountinfo := fmt.Sprintf("/proc/%d/mountinfo", cmd.Process.Pid)
	await(t, cmd, nil, 30*time.Second, "the run's mount of its case's overlay", func() bool { return len(mountsUnder(t, mountinfo, out)) > 0 })
	if m := mountsUnder(t, "/proc/self/mountinfo", out); len(m) > 0 {
		t.Errorf("the run's overlay is in the host's mount table: %v", m)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if m := mountsUnder(t, "/proc/self/mountinfo", out); len(m) > 0 {
		t.Errorf("mounts left after SIGKILL: %v", m)
	}
	res := runWorkspace(t, dir, out, []string{workspace.CloneEnv + "=overlay"}, "--resume", out)
	rows := readParquet(t, filepath.Join(out, "results.parquet")).Rows
	if len(rows) != 1 || rows[0]["status"] != "passed" {
		t.Fatalf("--resume after SIGKILL: exit %d, rows %v\n%s", res.code, rows, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(out, workspace.LayersDirName)); !os.IsNotExist(err) {
		t.Errorf("%s left after the resume: %v", workspace.LayersDirName, err)
	}
}

// TestWorkspaceOverlayWASM: a WASM tool (in murmur-eval's process, as
// root) sees the overlaid workspace, writes into it, and cannot reach the
// overlay's layers or the base through links a bash call planted; the
// next case sharing the workspace sees the original.
func TestWorkspaceOverlayWASM(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("overlays need root")
	}
	e2eBinary(t)
	dir := copyCapsule(t, "cmd/murmur-eval/testdata/escape")
	installTool(t, dir, "fileop", "./cmd/murmur-eval/testdata/escape/tools/fileop")
	overlayWorkspace(t, dir)
	out := filepath.Join(reachableTempDir(t), "run")
	plant := "ln -s " + filepath.Join(out, workspace.LayersDirName) + " up && ln -s " + filepath.Join(out, workspace.DirName) + " wsl && echo planted"
	ops := map[string]any{
		"read":  []string{"/a.txt", "/d/e/c.txt"},
		"write": []string{"/a.txt", "/d/new.txt", "/up/pwned", "/wsl/pwned"},
		"list":  []string{"/up", "/wsl", "/d"},
	}
	cases := []scripted{
		{id: "wasm", calls: append(bash(plant), toolUse{"fileop", ops})},
		{id: "reader"},
	}
	writeScripted(t, dir, cases)
	ds := readFile(t, filepath.Join(dir, "cases.jsonl"))
	ds = strings.ReplaceAll(ds, `"task":"Run the tools."`, `"task":"Run the tools.","workspace":"repo"`)
	ds = strings.Replace(ds, `"case_id":"reader",`, `"case_id":"reader","expected":{"check":"grep -qx original a.txt && test ! -e d/new.txt"},`, 1)
	ds = strings.Replace(ds, `"case_id":"wasm",`, `"case_id":"wasm","expected":{"check":"grep -qx 'written by fileop' a.txt && test -e d/new.txt"},`, 1)
	f := newFixture(t, dir).writeCases(strings.TrimSuffix(ds, "\n"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := f.with(withEnv(workspace.CloneEnv+"=overlay")).start(ctx, out,
		"--workers", "1", "--timeout", "60s", "--progress", "none")
	stderr, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	byCase := resultsByCase(t, out)
	for _, c := range cases {
		if row := byCase[c.id]; row["status"] != "passed" {
			t.Errorf("case %s: status %v (%v)", c.id, row["status"], row["error_message"])
		}
	}
	sdir := filepath.Join(out, filepath.FromSlash(fmt.Sprint(byCase["wasm"]["session_dir"])))
	calls := toolCalls(t, filepath.Join(sdir, "trace.jsonl"))
	if len(calls) != 2 {
		t.Fatalf("tool calls %v", calls)
	}
	got := fmt.Sprint(calls[1]["output"])
	for _, want := range []string{`read /a.txt: ok: "original\n"`, `read /d/e/c.txt: ok: "gamma\n"`, "write /a.txt: <nil>", "write /d/new.txt: <nil>", "list /d: [b.txt e new.txt]"} {
		if !strings.Contains(got, want) {
			t.Errorf("the WASM tool's output lacks %q:\n%s", want, got)
		}
	}
	for _, line := range strings.Split(got, "\n") {
		if (strings.Contains(line, "/up") || strings.Contains(line, "/wsl")) && !strings.Contains(line, "not permitted") {
			t.Errorf("not refused: %s", line)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(out, workspace.DirName, "*", "pwned")); len(m) > 0 {
		t.Errorf("the WASM tool wrote into the base: %v", m)
	}
}

// TestWorkspaceOverlayUnavailable: a run that did not enter a mount
// namespace of its own (MURMUR_EVAL_MOUNTNS already set, as if started
// by another murmur-eval) mounts nothing: a forced overlay is E-IO-003
// naming the mechanism, auto falls back to a copy and passes.
func TestWorkspaceOverlayUnavailable(t *testing.T) {
	e2eBinary(t)
	dir := t.TempDir()
	overlayWorkspace(t, dir)
	workspaceDataset(t, dir, []wsCase{{id: "one", workspace: "repo", bash: "echo changed > a.txt", check: "grep -qx changed a.txt"}})
	noNS := workspace.MountNSEnv + "=mnt:[0]"
	out := filepath.Join(reachableTempDir(t), "forced")
	runWorkspace(t, dir, out, []string{noNS, workspace.CloneEnv + "=overlay"})
	row := readParquet(t, filepath.Join(out, "results.parquet")).Rows[0]
	if row["status"] != "error" || row["error_code"] != "E-IO-003" || !strings.Contains(fmt.Sprint(row["error_message"]), "overlay") {
		t.Errorf("forced overlay without a namespace: %v %v %v", row["status"], row["error_code"], row["error_message"])
	}
	out = filepath.Join(reachableTempDir(t), "auto")
	runWorkspace(t, dir, out, []string{noNS})
	row = readParquet(t, filepath.Join(out, "results.parquet")).Rows[0]
	if row["status"] != "passed" {
		t.Errorf("auto without a namespace: %v %v", row["status"], row["error_message"])
	}
	base, _ := filepath.Glob(filepath.Join(out, workspace.DirName, "*", "d", "b.txt"))
	sdir := filepath.Join(out, filepath.FromSlash(fmt.Sprint(row["session_dir"])))
	if fi, err := os.Stat(filepath.Join(sdir, "d", "b.txt")); err != nil || len(base) != 1 || os.SameFile(fi, statOf(t, base[0])) {
		t.Errorf("auto without a namespace: d/b.txt is the base's (%v), want a copy", err)
	}
	if _, err := os.Stat(filepath.Join(out, workspace.LayersDirName)); !os.IsNotExist(err) {
		t.Errorf("%s made without overlays: %v", workspace.LayersDirName, err)
	}
}
