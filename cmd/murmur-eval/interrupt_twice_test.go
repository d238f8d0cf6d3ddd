package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSecondInterruptExitsAtOnce: a case whose dataset check is still
// running (the Report stage, and so its check, outlives the first
// interrupt, bounded by --check-timeout) keeps the run alive after the
// first Ctrl-C; the second ends it at once, saying that it did not write
// the Parquet files and the summary, and the journal keeps the case that
// finished before (issue 39, finding 5).
func TestSecondInterruptExitsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	e2eBinary(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "murmur.yaml"), checkCapsule)
	writeScripted(t, dir, []scripted{
		{id: "quick", expected: map[string]any{"result_contains": "done"}, calls: bash("")},
		{id: "slow-check", expected: map[string]any{"check": "touch check-started && sleep 60"}, calls: bash("")},
	})
	out := filepath.Join(reachableTempDir(t), "run")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := newFixture(t, dir).start(ctx, out, "--workers", "2", "--check-timeout", "90s")
	var stderr syncBuffer // read while the run writes it
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := func() bool {
		m, _ := filepath.Glob(filepath.Join(out, "sessions", "*", "check-started"))
		return len(m) > 0
	}
	await(t, cmd, &stderr, 90*time.Second, "the check running and the other case journaled", func() bool { return started() && journalLines(out) >= 1 })
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	await(t, cmd, &stderr, 30*time.Second, "the first interrupt said", func() bool { return strings.Contains(stderr.String(), "interrupted: cancelling") })
	if !strings.Contains(stderr.String(), "a dataset check already under way still runs, up to its time limit: --check-timeout 1m30s") {
		t.Errorf("the first interrupt's line does not say the running check goes on:\n%s", stderr.String())
	}
	begin := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatalf("second interrupt: %v (the run ended after the first)\nstderr:\n%s", err, stderr.String())
	}
	_ = cmd.Wait()
	if took := time.Since(begin); took > 20*time.Second || cmd.ProcessState.ExitCode() != exitInterrupted {
		t.Errorf("after the second interrupt: exit %d in %v, want %d at once\nstderr:\n%s", cmd.ProcessState.ExitCode(), took, exitInterrupted, stderr.String())
	}
	if !strings.Contains(stderr.String(), "murmur-eval: interrupted again: exiting without writing the Parquet files and the summary") {
		t.Errorf("stderr does not say what the second interrupt did:\n%s", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, "results.parquet")); err == nil {
		t.Errorf("results.parquet written after the second interrupt")
	}
	if n := journalLines(out); n != 1 {
		t.Errorf("journal: %d lines, want the 1 case that finished", n)
	}
}
