package main

import (
	"os/exec"
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
	r, _ := runE2E(t, []string{"version"}, plainArgs())
	v := strings.TrimSpace(strings.TrimPrefix(r.stdout, "murmur-eval "))
	if r.code != 0 || v == "dev" || !strings.Contains(v, strings.TrimSpace(string(rev))) {
		t.Errorf("version: exit %d, %q; want the checkout's revision %s", r.code, v, rev)
	}
}
