package main

import (
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestBareCommandPrintsUsage: `murmur-eval` alone, outside a capsule
// folder, prints the short usage (the commands, the run command's main
// flags, where the rest is) and exits 2; it is not an error about a
// missing dataset (issue 39, finding 9).
func TestBareCommandPrintsUsage(t *testing.T) {
	e2eBinary(t)
	t.Parallel()
	r, _ := runE2E(t, nil, plainArgs())
	if r.code != exitUsage || strings.Contains(r.stderr, "error[") || r.stdout != "" {
		t.Fatalf("exit %d, want %d with the usage and no error:\nstdout %q\nstderr:\n%s", r.code, exitUsage, r.stdout, r.stderr)
	}
	for _, want := range []string{"Usage: murmur-eval [run] [CAPSULE_DIR] --dataset FILE", "show", "diff", "merge", "report", "pack", "--dataset", "--out", "--replay", "--workers", "--baseline", "murmur-eval help"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the usage lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "--cpuprofile") || strings.Contains(r.stderr, "--huge-pages") {
		t.Errorf("the short usage lists more than the main flags:\n%s", r.stderr)
	}
}

// TestCapsuleWithoutDatasetIsUsageError: in a capsule folder with no
// ./eval.jsonl and no --dataset, murmur-eval stops with murmur's error
// (E-IO-001, exit 2), saying --dataset is needed, and the usage line.
func TestCapsuleWithoutDatasetIsUsageError(t *testing.T) {
	e2eBinary(t)
	t.Parallel()
	dir := copyCapsule(t, "examples/quickstart")
	r, _ := runE2E(t, nil, plainArgs(), inDir(dir))
	if r.code != exitUsage || !hasCode(r.stderr, errcode.IONotFound) || !strings.Contains(r.stderr, "--dataset") {
		t.Fatalf("exit %d, want %d with %s naming --dataset:\n%s", r.code, exitUsage, errcode.IONotFound, r.stderr)
	}
	if !strings.Contains(r.stderr, "murmur-eval [run] [CAPSULE_DIR] --dataset FILE") {
		t.Errorf("no usage line:\n%s", r.stderr)
	}
}
