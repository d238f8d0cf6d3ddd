package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// murmurSession is what every agent session holds when its loop ended, in
// murmur's layout (murmur-session.md §7.1): the task, the environment
// reference, the trace, the result, the scores in murmur's record format,
// and the folders murmur's stage and loop make (tools/ always, logs/ where
// murmur writes its bootstrap log).
// logs/transcript.jsonl is murmur-eval's one addition: the conversation
// show --case, view and the judge read (package transcript).
var murmurSession = []string{"MURMUR.md", "eval.jsonl", "logs/", "logs/transcript.jsonl", "out/", "out/result.txt", "task.md", "tools/", "trace.jsonl"}

// TestSessionHoldsMurmursLayoutOnly runs, through the real binary, a
// capsule with no tool, the quickstart (two WASM tools) and a shell
// capsule, and lists every entry of each case's session folder: exactly
// murmur's layout and the transcript, so that a file nobody reads (each one an inode per case
// on the run folder's file system: BENCHMARKS.md, "Files per case") is
// noticed. A WASM tool's folder holds its murmur.yaml and not its module,
// as murmur's; the subprocesses' HOME exists only once one has run.
func TestSessionHoldsMurmursLayoutOnly(t *testing.T) {
	e2eBinary(t)
	t.Parallel()
	with := func(extra ...string) []string {
		return slices.Sorted(slices.Values(append(slices.Clone(murmurSession), extra...)))
	}
	t.Run("no tool", func(t *testing.T) {
		t.Parallel()
		dir := reachableTempDir(t)
		writeFile(t, filepath.Join(dir, "murmur.yaml"), shellCapsuleManifest("plain", ""))
		writeScripted(t, dir, []scripted{{id: "answer"}})
		out, r := newFixture(t, dir).run("--workers", "1")
		if r.code != 0 {
			t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
		}
		checkSessionEntries(t, out, "answer", with())
	})
	t.Run("wasm tools", func(t *testing.T) {
		t.Parallel()
		out, r := newFixture(t, quickstart(t)).run("--filter", "calc-multiply", "--workers", "1")
		if r.code != 0 {
			t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
		}
		checkSessionEntries(t, out, "calc-multiply",
			with("tools/calc/", "tools/calc/murmur.yaml", "tools/notes/", "tools/notes/murmur.yaml"))
	})
	t.Run("shell", func(t *testing.T) {
		t.Parallel()
		dir := reachableTempDir(t)
		writeFile(t, filepath.Join(dir, "murmur.yaml"), shellCapsuleManifest("sh", "capabilities:\n  shell:\n    allow: [bash]\n"))
		writeScripted(t, dir, []scripted{{id: "quiet"}, {id: "shell", calls: bash("true")}})
		out, r := newFixture(t, dir).run("--workers", "1")
		if r.code != 0 {
			t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
		}
		// logs/bootstrap.log holds the run's W-SEC-005 warning, as murmur's;
		// bash gets no tools/bash/ (murmur-eval writes no generic manifest).
		checkSessionEntries(t, out, "quiet", with("logs/bootstrap.log"))
		checkSessionEntries(t, out, "shell", with("logs/bootstrap.log", ".capsule-home/"))
	})
}

// checkSessionEntries compares the entries under caseID's session folder
// (folders with a trailing slash) with want, and checks its cases/ link.
func checkSessionEntries(t *testing.T, out, caseID string, want []string) {
	t.Helper()
	row, ok := resultsByCase(t, out)[caseID]
	if !ok {
		t.Fatalf("no results row for case %q", caseID)
	}
	if row["status"] != "passed" {
		t.Errorf("case %s: status %v (%v), want passed", caseID, row["status"], row["error_message"])
	}
	sdir := filepath.Join(out, filepath.FromSlash(row["session_dir"].(string)))
	var got []string
	err := filepath.WalkDir(sdir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == sdir {
			return err
		}
		rel, _ := filepath.Rel(sdir, p)
		if d.IsDir() {
			rel += "/"
		}
		got = append(got, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("case %s: session entries (-want +got):\n%s", caseID, diff)
	}
	link, err := os.Readlink(filepath.Join(out, "cases", caseID+".e1.a1"))
	if err != nil || filepath.Base(link) != filepath.Base(sdir) {
		t.Errorf("case %s: cases/ link %q (%v), want one to %s", caseID, link, err, filepath.Base(sdir))
	}
}
