package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNetworkAllowEntries: murmur's staging checks on network.allow,
// through the real binary. A bad entry refuses the run before any case
// with E-CAP-001 in murmur's words (issue 16, Deliver 1); a tool's entry
// the capsule-wide list does not cover is dropped with W-SEC-007, and the
// run goes on.
func TestNetworkAllowEntries(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	qs := quickstart(t)
	t.Parallel()
	withCaps := func(t *testing.T, caps, calcCaps string) string {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "capsule")
		if err := os.CopyFS(dir, os.DirFS(qs)); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "murmur.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		y := strings.Replace(string(b), "capabilities:\n", "capabilities:\n"+caps, 1)
		y = strings.Replace(y, "  - name: calc\n    runtime: tool\n    version: 0.1.0\n", "  - name: calc\n    runtime: tool\n    version: 0.1.0\n"+calcCaps, 1)
		if err := os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(y), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	run := func(t *testing.T, dir string) result {
		_, r := newFixture(t, dir).run("--filter", "calc-multiply")
		return r
	}

	t.Run("bad entry", func(t *testing.T) {
		t.Parallel()
		r := run(t, withCaps(t, "  network:\n    allow: [api.anthropic.com, \"ftp://example.com\"]\n", ""))
		want := "error[E-CAP-001]: murmur.yaml: invalid network allow entry 'ftp://example.com': unsupported URL scheme 'ftp' (expected http or https) (capabilities.network.allow[1])"
		if r.code != exitUsage || !strings.Contains(r.stderr, want) {
			t.Errorf("exit %d, want %d with %q\nstderr:\n%s", r.code, exitUsage, want, r.stderr)
		}
	})
	t.Run("a tool's entry outside the ceiling", func(t *testing.T) {
		t.Parallel()
		r := run(t, withCaps(t, "  network:\n    allow: [api.anthropic.com]\n",
			"    capabilities:\n      network:\n        allow: [\"https://api.anthropic.com\", \"https://evil.example\"]\n"))
		want := "warning[W-SEC-007]: artifact 'calc' declares capabilities.network.allow entries the capsule-wide ceiling does not allow (https://evil.example)"
		if r.code != 0 || !strings.Contains(r.stderr, want) {
			t.Errorf("exit %d, want 0 with %q\nstderr:\n%s", r.code, want, r.stderr)
		}
	})
}
