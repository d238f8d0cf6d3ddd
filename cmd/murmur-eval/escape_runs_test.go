package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/internal/parquetbomb"
	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/runfolder"
)

// Finding 9 of issue 13: two --resume of one run at once both exited 0,
// left corrupt journal lines, and merge then kept 9 of 300 rows. Finding
// 10: a 39 KB Parquet file expanding to 1 GB made diff use 8.5 GB.

// killedRun starts a run of n cases of the quickstart qs into a new
// folder and kills it with SIGKILL once `after` cases are journaled; it
// returns the folder and the run's fixture.
func killedRun(t *testing.T, qs string, n, after int) (string, *fixture) {
	t.Helper()
	f := newFixture(t, qs).withData(bigDataset(t, qs, n)).withFlags("--workers", "2", "--max-error-rate", "1", "--progress", "none")
	dir := f.newOut()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := f.start(ctx, dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	await(t, cmd, &stderr, 2*time.Minute, fmt.Sprintf("%d cases journaled", after), func() bool { return journalLines(dir) >= after })
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if got := journalLines(dir); got >= n {
		t.Fatalf("the run finished (%d lines) before it was killed", got)
	}
	return dir, f
}

// TestResumeOfTheRunThatWroteTheLock: the first run on a capsule without
// murmur.lock writes one as its first case stages, after the run recorded
// its configuration; killed and resumed, it goes on (the lock is adopted
// into run.json), while a lock changed after that is refused.
func TestResumeOfTheRunThatWroteTheLock(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	dir, f := killedRun(t, qs, 40, 5)
	lock := filepath.Join(qs, "murmur.lock")
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("the first run wrote no lock: %v", err)
	}
	if r := f.resume(dir); r.code != exitOK {
		t.Fatalf("resume: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	prev, err := journal.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if prev.Config["lock"] == journal.Absent {
		t.Errorf("run.json still records the lock as absent")
	}
	checkOncePerPair(t, "resumed", stableRows(readParquet(t, filepath.Join(dir, reports.ResultsFile))), 40)

	// Once adopted, a changed lock is a changed configuration.
	b, err := os.ReadFile(lock)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lock, append(b, []byte("# edited\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := f.resume(dir); r.code != exitUsage || !strings.Contains(r.stderr, "configuration changed since it started: lock") {
		t.Errorf("resume after the lock changed: exit %d, want %d naming the lock\nstderr:\n%s", r.code, exitUsage, r.stderr)
	}
}

// wholeJournal reads a run's journal and fails unless it reads whole.
func wholeJournal(t *testing.T, dir string) []journal.Entry {
	t.Helper()
	path := filepath.Join(dir, runfolder.JournalFile)
	c, err := journal.Read(path, journal.CheckRecord)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Whole(path); err != nil {
		t.Fatalf("journal: %s", errcode.Format(err))
	}
	return c.Entries
}

// TestConcurrentResumesOneProceeds: two --resume of one killed run started
// together: exactly one runs (exit 0), the other is refused at once with
// E-EVL-050 and exit 2 and writes nothing; the journal reads whole and a
// merge of the folder has every case once.
func TestConcurrentResumesOneProceeds(t *testing.T) {
	const n = 120
	qs := quickstart(t)
	t.Parallel()
	dir, f := killedRun(t, qs, n, 10)

	var wg sync.WaitGroup
	var mu sync.Mutex
	var exited []int // the order the two processes ended in
	res := make([]result, 2)
	for i := range res {
		wg.Go(func() {
			res[i] = f.resume(dir)
			mu.Lock()
			exited = append(exited, i)
			mu.Unlock()
		})
	}
	wg.Wait()
	won, lost := res[0], res[1]
	if won.code != exitOK {
		won, lost = lost, won
	}
	if won.code != exitOK {
		t.Fatalf("neither resume succeeded: exits %d and %d\nstderr:\n%s\n---\n%s", res[0].code, res[1].code, res[0].stderr, res[1].stderr)
	}
	if lost.code != exitUsage || !hasCode(lost.stderr, errcode.RunFolderLocked) || !strings.Contains(lost.stderr, "pid ") {
		t.Errorf("the second resume: exit %d, want %d with %s naming the holder's pid\nstderr:\n%s", lost.code, exitUsage, errcode.RunFolderLocked, lost.stderr)
	}
	// Refused at once: it ended while the other still held the lock and
	// ran its cases (an order of events, not a time limit).
	if res[exited[0]].code == exitOK {
		t.Errorf("the refused resume ended after the one that ran (it took %s, the other %s): want it refused at once", lost.elapsed, won.elapsed)
	}
	if entries := journal.Latest(wholeJournal(t, dir)); len(entries) != n {
		t.Errorf("journal holds %d (case, epoch) pairs, want %d", len(entries), n)
	}
	checkOncePerPair(t, "resumed", stableRows(readParquet(t, filepath.Join(dir, reports.ResultsFile))), n)

	// The lock is released at exit: merge (a shared lock) and another
	// resume may take the folder now.
	merged := filepath.Join(t.TempDir(), "merged")
	if r := runBinary(t, "merge", "-o", merged, dir); r.code != exitOK {
		t.Fatalf("merge: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	checkOncePerPair(t, "merged", stableRows(readParquet(t, filepath.Join(merged, reports.ResultsFile))), n)
}

// TestMergeRefusesARunningShard: merge of a folder whose run still holds
// the lock is refused with E-EVL-050; so is a run --out into it, and a
// --resume of it.
func TestMergeRefusesARunningShard(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	dir, f := killedRun(t, qs, 60, 5)
	lock, err := journal.Acquire(dir) // stands in for a run still going
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	for name, a := range map[string][]string{
		"merge":  {"merge", "-o", filepath.Join(t.TempDir(), "merged"), dir},
		"resume": f.argsFor("--resume", dir),
	} {
		r := runBinary(t, a...)
		if r.code != exitUsage || !hasCode(r.stderr, errcode.RunFolderLocked) {
			t.Errorf("%s of a locked folder: exit %d, want %d with %s\nstderr:\n%s", name, r.code, exitUsage, errcode.RunFolderLocked, r.stderr)
		}
	}
}

// TestCorruptJournalLine: a run's journal with a garbled middle line (two
// writers at once leave such lines) is refused by merge at
// journal.jsonl:LINE; --resume warns once, runs that case again and
// rewrites the journal, after which merge has every case.
func TestCorruptJournalLine(t *testing.T) {
	const n = 20
	qs := quickstart(t)
	t.Parallel()
	f := newFixture(t, qs).withData(bigDataset(t, qs, n)).withFlags("--workers", "2", "--max-error-rate", "1", "--progress", "none")
	dir := f.newOut()
	if r := f.runInto(dir); r.code != exitOK {
		t.Fatalf("run: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	path := filepath.Join(dir, runfolder.JournalFile)
	lines := readLines(t, path)
	lines[4] = lines[4][:len(lines[4])/2] + `{"case_id":"x","ep` // line 5: two writes interleaved
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	r := runBinary(t, "merge", "-o", filepath.Join(t.TempDir(), "merged"), dir)
	if r.code != exitUsage || !hasCode(r.stderr, errcode.JournalCorrupt) || !strings.Contains(r.stderr, runfolder.JournalFile+":5:") {
		t.Errorf("merge of a corrupt journal: exit %d, want %d with %s at %s:5\nstderr:\n%s", r.code, exitUsage, errcode.JournalCorrupt, runfolder.JournalFile, r.stderr)
	}

	r = f.resume(dir)
	if r.code != exitOK {
		t.Fatalf("resume: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if strings.Count(r.stderr, "could not be read") != 1 || !regexp.MustCompile(`\b1 lines? could not be read`).MatchString(r.stderr) ||
		!strings.Contains(r.stderr, runfolder.JournalFile+":5:") || !regexp.MustCompile(`\b1 cases? to resume \(19 finished\)`).MatchString(r.stderr) {
		t.Errorf("resume did not warn once about line 5 and rerun its case:\n%s", r.stderr)
	}
	if got := len(journal.Latest(wholeJournal(t, dir))); got != n {
		t.Errorf("journal after resume: %d pairs, want %d", got, n)
	}
	checkOncePerPair(t, "resumed", stableRows(readParquet(t, filepath.Join(dir, reports.ResultsFile))), n)
	merged := filepath.Join(t.TempDir(), "merged")
	if r := runBinary(t, "merge", "-o", merged, dir); r.code != exitOK {
		t.Fatalf("merge after resume: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	checkOncePerPair(t, "merged", stableRows(readParquet(t, filepath.Join(merged, reports.ResultsFile))), n)
}

// TestParquetBombIsRefused: a run folder whose 39 KB results.parquet
// decompresses to 1 GiB is refused by diff, show, report, merge
// --baseline and run --baseline with E-EVL-052 and exit 2, each process
// staying under 150 MiB of resident memory (the unbounded reader took
// 4.8 GiB and 38 s for diff).
func TestParquetBombIsRefused(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	good, r := newFixture(t, qs).run()
	if r.code != exitOK {
		t.Fatalf("run: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	bomb := filepath.Join(t.TempDir(), "bomb")
	if err := os.Mkdir(bomb, 0o755); err != nil {
		t.Fatal(err)
	}
	row := reports.ResultRow{RunID: "run_x", CaseID: "a", Status: reports.StatusPassed, StartedAt: time.Now()}
	if err := parquetbomb.WriteResults(filepath.Join(bomb, reports.ResultsFile), 1<<30, []reports.ResultRow{row}); err != nil {
		t.Fatal(err)
	}
	cases := map[string][]string{
		"diff":           {"diff", good, bomb},
		"show":           {"show", bomb},
		"report":         {"report", good, bomb, "-o", filepath.Join(t.TempDir(), "r.html")},
		"merge baseline": {"merge", "-o", filepath.Join(t.TempDir(), "merged"), "--baseline", bomb, good},
		"run baseline": {qs, "--dataset", filepath.Join(qs, "cases.jsonl"), "--replay", filepath.Join(qs, "recordings"),
			"--out", filepath.Join(t.TempDir(), "run"), "--baseline", bomb},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			r, maxRSS := runMeasured(t, args...)
			if r.code != exitUsage || !hasCode(r.stderr, errcode.ReadLimit) || !strings.Contains(r.stderr, filepath.Join(bomb, reports.ResultsFile)) {
				t.Errorf("exit %d, want %d with %s naming the file\nstderr:\n%s", r.code, exitUsage, errcode.ReadLimit, r.stderr)
			}
			// A child's ru_maxrss starts from the test process's own peak:
			// exec records the high-water mark of the memory it shared
			// with its parent until then. Only a peak above both counts.
			if limit := max(selfPeakRSS(t), 150<<20); maxRSS > limit {
				t.Errorf("max RSS %d MiB, want under %d MiB", maxRSS>>20, limit>>20)
			}
			t.Logf("refused in %s, max RSS %d MiB", r.elapsed, maxRSS>>20)
		})
	}
}

// runMeasured is runBinary that also returns the process's peak resident
// memory in bytes.
func runMeasured(t *testing.T, args ...string) (result, int64) {
	t.Helper()
	r, state := runE2E(t, args)
	var rss int64
	if ru, ok := state.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss << 10 // KiB on Linux
	}
	return r, rss
}

// selfPeakRSS is this process's peak resident memory (VmHWM), in bytes.
func selfPeakRSS(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}
