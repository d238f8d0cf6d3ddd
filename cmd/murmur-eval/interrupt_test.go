package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptKeepsFinishedCases: SIGINT while one case is stuck in a tool
// (no --timeout) ends the run with exit 130; the three finished cases and
// the cancelled one are all in results.parquet. What it prints is what
// happened: the interrupt cancels the one running case, the last line
// counts 3 finished and 1 cancelled (not 4 finished), the pass rate's "of
// N run" leaves the cancelled case out, and the command that resumes the
// run is printed.
func TestInterruptKeepsFinishedCases(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	dir := hangCapsule(t)
	out := filepath.Join(reachableTempDir(t), "run")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := newFixture(t, dir).start(ctx, out,
		"--timeout", "0", "--workers", "2")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the three other cases are journaled: handed over, so the
	// hanging one is the only case running.
	await(t, cmd, &stderr, 90*time.Second, "the three other cases journaled", func() bool { return journalLines(out) >= 3 })
	// show, while the run hangs, reads its journal and says it is running.
	shown, _ := runE2E(t, []string{"show", out})
	if want := "Still running: 3 of 4 planned cases finished so far"; shown.code != 0 || !strings.Contains(shown.stdout, want) {
		t.Errorf("show of the running run: exit %d, want 0 and %q:\n%s%s", shown.code, want, shown.stdout, shown.stderr)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != exitInterrupted {
		t.Fatalf("exit: %v, want code %d\nstderr:\n%s", err, exitInterrupted, stderr.String())
	}
	byCase := resultsByCase(t, out)
	want := map[string]string{"add": "passed", "multiply": "passed", "subtract": "passed", "hang-forever": "cancelled"}
	for id, status := range want {
		if got := byCase[id]["status"]; got != status {
			t.Errorf("case %q: status %v, want %s", id, got, status)
		}
	}
	if got := byCase["hang-forever"]["error_code"]; got != "E-EVL-021" {
		t.Errorf("cancelled case: error_code %v, want E-EVL-021", got)
	}
	f := newFixture(t, dir)
	for _, want := range []string{
		"murmur-eval: interrupted: cancelling the 1 running case and starting no more;",
		"murmur-eval: run interrupted: 3 cases finished, 1 was cancelled; their rows are written\n",
		"murmur-eval: run the rest with: " + shellLine([]string{"murmur-eval", dir, "--dataset", f.dataset, "--timeout", "0s", "--replay", f.replay, "--resume", out}) + "\n",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if strings.Contains(stderr.String(), "finishing running cases") {
		t.Errorf("stderr says the running cases finish; they are cancelled:\n%s", stderr.String())
	}
	if want := "100.0% of 3 run"; !strings.Contains(stdout.String(), want) {
		t.Errorf("summary lacks %q (the cancelled case did not run):\n%s", want, stdout.String())
	}
}

// hangCapsule is testdata/hang with the quickstart's calc tool and the hang
// tool built and packed into its project store.
func hangCapsule(t *testing.T) string {
	t.Helper()
	e2eBinary(t)
	dir := copyCapsule(t, "cmd/murmur-eval/testdata/hang")
	calcManifest, err := os.ReadFile(filepath.Join(moduleRoot(t), "examples", "quickstart", "tools", "calc", "murmur.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "tools", "calc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tools", "calc", "murmur.yaml"), calcManifest, 0o644); err != nil {
		t.Fatal(err)
	}
	installTool(t, dir, "calc", "./examples/quickstart/tools/calc")
	installTool(t, dir, "hang", "./cmd/murmur-eval/testdata/hang/tools/hang")
	return dir
}
