//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// diskCapsule is a capsule whose only tool is bash with the commands the
// disk attacks need, and murmur's tight profile's 50 MB workdir ceiling.
var diskCapsule = shellCapsuleManifest("escape-disk", `capabilities:
  shell:
    allow: [bash, rm, head, sleep, mkdir]
  limits:
    deadline_seconds: 60
  resources:
    workdir_max_bytes: 52428800
`)

// diskRun runs the scripted cases through the real binary on the capsule
// above, with extra flags, and returns the run folder and its rows by case.
func diskRun(t *testing.T, base string, cases []scripted, extra ...string) (string, map[string]map[string]any) {
	t.Helper()
	dir := filepath.Join(base, "capsule")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(diskCapsule), 0o644); err != nil {
		t.Fatal(err)
	}
	writeScripted(t, dir, cases)
	out := filepath.Join(base, "run")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := newFixture(t, dir).start(ctx, out, append([]string{"--workers", "2", "--timeout", "90s"}, extra...)...)
	b, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the run did not end: %v\n%s", err, b)
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	if _, serr := os.Stat(filepath.Join(out, "results.parquet")); serr != nil {
		t.Fatalf("no results (%v): %v\n%s", serr, err, b)
	}
	return out, resultsByCase(t, out)
}

// TestDeletedFilesAToolHoldsCountAgainstTheWorkdir is issue 33's finding
// through the real binary: a shell tool opens six files, deletes them,
// keeps them open and writes 300 MiB into them under a 50 MB
// workdir_max_bytes. The walk of the session's names finds nothing; the
// guard counts the blocks the call's processes hold, so the case ends
// with E-RUN-013 and the space comes back (measured on a file system of
// the test's own, a tmpfs, when the tests run as root). Before, the case
// passed and the disk lost 300 MiB for the call.
func TestDeletedFilesAToolHoldsCountAgainstTheWorkdir(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	e2eBinary(t)
	base := reachableTempDir(t)
	own := os.Geteuid() == 0
	if own {
		if err := unix.Mount("tmpfs", base, "tmpfs", 0, "size=1g,mode=0755"); err != nil {
			t.Fatalf("mount a tmpfs for the run: %v", err)
		}
		t.Cleanup(func() { _ = unix.Unmount(base, unix.MNT_DETACH) })
	}
	free := func() uint64 {
		var st unix.Statfs_t
		if err := unix.Statfs(base, &st); err != nil {
			t.Fatal(err)
		}
		return st.Bfree * uint64(st.Bsize)
	}
	before := free()
	hold := "exec 3>h1 4>h2 5>h3 6>h4 7>h5 8>h6 && rm h1 h2 h3 h4 h5 h6 && " +
		"for fd in 3 4 5 6 7 8; do head -c 52428800 /dev/zero >&$fd; done; echo wrote 300 MiB; sleep 30"
	out, rows := diskRun(t, base, []scripted{
		{id: "plain", calls: bash("head -c 1000000 /dev/zero > kept && echo ok")},
		{id: "held", calls: bash(hold)},
	})
	if row := rows["plain"]; row["status"] != "passed" {
		t.Errorf("case plain: %v %v %v, want passed", row["status"], row["error_code"], row["error_message"])
	}
	row := rows["held"]
	if row["error_code"] != errcode.RunWorkdirSize {
		t.Fatalf("case held: %v %v %v, want %s", row["status"], row["error_code"], row["error_message"], errcode.RunWorkdirSize)
	}
	if msg := fmt.Sprint(row["error_message"]); !strings.Contains(msg, "deleted files") {
		t.Errorf("case held: %q does not say deleted files held the bytes", msg)
	}
	if !own {
		return
	}
	// What the run keeps (results, traces, the session of plain with its
	// 1 MB file) is a few MB: the held 300 MiB are free again.
	after := free()
	if lost := int64(before) - int64(after); lost > 20<<20 {
		t.Errorf("the run's file system lost %d bytes (free %d -> %d); the tool's deleted files still hold space", lost, before, after)
	}
	_ = os.RemoveAll(out)
}

// TestFileCountIsBounded is issue 33's other finding: 60,000 empty files
// passed (no bound on the number of files). With --workdir-max-files (here
// 500, for a short run) a tool creating 2,000 is stopped with E-RUN-013
// while a case creating 100 passes; with no flag, 60,000 meet the default
// bound of 50,000; with 0 there is no bound.
func TestFileCountIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	e2eBinary(t)
	create := func(n int) []toolUse {
		return bash(fmt.Sprintf("mkdir -p d; for ((i=0; i<%d; i++)); do : > d/f$i || exit 1; done; echo made %d", n, n))
	}
	for _, tc := range []struct {
		name  string
		flags []string
		cases []scripted
		want  map[string]string // case -> error code ("" passes)
	}{
		{"flag", []string{"--workdir-max-files", "500"},
			[]scripted{{id: "few", calls: create(100)}, {id: "many", calls: create(2000)}},
			map[string]string{"few": "", "many": errcode.RunWorkdirSize}},
		{"no-bound", []string{"--workdir-max-files", "0"},
			[]scripted{{id: "many", calls: create(2000)}},
			map[string]string{"many": ""}},
		{"default", nil,
			[]scripted{{id: "sixty-thousand", calls: create(60_000)}},
			map[string]string{"sixty-thousand": errcode.RunWorkdirSize}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, rows := diskRun(t, reachableTempDir(t), tc.cases, tc.flags...)
			for id, code := range tc.want {
				row := rows[id]
				if got := fmt.Sprint(row["error_code"]); code == "" && row["status"] != "passed" || code != "" && got != code {
					t.Errorf("case %s: %v %v %v, want %q", id, row["status"], row["error_code"], row["error_message"], code)
				}
			}
			t.Logf("%s: %s", tc.name, time.Since(start))
		})
	}
}
