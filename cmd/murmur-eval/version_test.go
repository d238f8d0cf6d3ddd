package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionOfACheckoutBuild: a murmur-eval built with go build in a git
// checkout (as the e2e binary is, without -ldflags) reports the
// checkout's revision, not "dev" (issue 39, finding 9).
func TestVersionOfACheckoutBuild(t *testing.T) {
	e2eBinary(t)
	t.Parallel()
	rev, err := exec.Command("git", "-C", moduleRoot(t), "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	// In a linked worktree (.git a file) the go command records no VCS
	// settings, so the binary says dev with its reason: nothing to check.
	if fi, err := os.Stat(filepath.Join(moduleRoot(t), ".git")); err != nil || !fi.IsDir() {
		t.Skip("not the repository's main checkout (a linked worktree): go build records no revision here")
	}
	r, _ := runE2E(t, []string{"version"}, plainArgs())
	v := strings.TrimSpace(strings.TrimPrefix(r.stdout, "murmur-eval "))
	if r.code != 0 || v == "dev" || !strings.Contains(v, strings.TrimSpace(string(rev))) {
		t.Errorf("version: exit %d, %q; want the checkout's revision %s", r.code, v, rev)
	}
}
