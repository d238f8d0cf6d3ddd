package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestInterruptKeepsFinishedCases: SIGINT while one case is stuck in a tool
// (no --timeout) ends the run with exit 130; the three finished cases and
// the cancelled one are all in results.parquet.
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
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the three other cases have written their result.
	await(t, cmd, &stderr, 90*time.Second, "the three other cases' results", func() bool { return finished(t, out) >= 3 })
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
}

// finished counts the session folders that have out/result.txt.
func finished(t *testing.T, out string) int {
	matches, _ := filepath.Glob(filepath.Join(out, "sessions", "*", "out", "result.txt"))
	return len(matches)
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
