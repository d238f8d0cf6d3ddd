package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/murmur-nexus/murmur-eval/runfolder"

	gocmp "github.com/google/go-cmp/cmp"
)

// volatile are the results columns that differ between two runs of the same
// recordings: ids, timing, where the session lives.
var volatile = []string{"run_id", "session_id", "session_dir", "started_at", "duration_ms",
	"resolve_ms", "verify_ms", "stage_ms", "contain_ms", "launch_ms", "loop_ms", "report_ms"}

// bigDataset writes into the quickstart copy qs a dataset of n cases, the
// quickstart's cases repeated under new ids, each with its recording, and
// returns the dataset and the recordings folder.
func bigDataset(t *testing.T, qs string, n int) (string, string) {
	t.Helper()
	lines := readLines(t, filepath.Join(qs, "cases.jsonl"))
	recs := filepath.Join(qs, "recordings-big")
	if err := os.MkdirAll(recs, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range n {
		var c map[string]any
		if err := json.Unmarshal([]byte(lines[i%len(lines)]), &c); err != nil {
			t.Fatal(err)
		}
		orig := c["case_id"].(string)
		c["case_id"] = fmt.Sprintf("%s-%03d", orig, i)
		rec, err := os.ReadFile(recordingPath(filepath.Join(qs, "recordings"), orig))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(recordingPath(recs, c["case_id"].(string)), rec, 0o644); err != nil {
			t.Fatal(err)
		}
		line, _ := json.Marshal(c)
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(qs, fmt.Sprintf("cases-%d.jsonl", n))
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, recs
}

// stableRows returns a results table's rows without the volatile columns,
// ordered by case, epoch and attempt.
func stableRows(tbl table) []map[string]any {
	rows := make([]map[string]any, len(tbl.Rows))
	for i, r := range tbl.Rows {
		m := map[string]any{}
		for k, v := range r {
			if !slices.Contains(volatile, k) {
				m[k] = v
			}
		}
		rows[i] = m
	}
	slices.SortFunc(rows, func(a, b map[string]any) int {
		return cmp.Or(strings.Compare(a["case_id"].(string), b["case_id"].(string)),
			cmp.Compare(a["epoch"].(int32), b["epoch"].(int32)), cmp.Compare(a["attempt"].(int32), b["attempt"].(int32)))
	})
	return rows
}

// checkOncePerPair fails unless every (case, epoch) of rows has one row.
func checkOncePerPair(t *testing.T, name string, rows []map[string]any, want int) {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range rows {
		k := fmt.Sprintf("%v/%v", r["case_id"], r["epoch"])
		if seen[k] {
			t.Errorf("%s: (case, epoch) %s has more than one row", name, k)
		}
		seen[k] = true
	}
	if len(seen) != want {
		t.Errorf("%s: %d (case, epoch) pairs, want %d", name, len(seen), want)
	}
}

// TestKilledRunResumes kills the evaluator with SIGKILL in the middle of a
// 120-case run, resumes it, and compares results.parquet with an
// uninterrupted run of the same recordings.
func TestKilledRunResumes(t *testing.T) {
	// n cases: enough that the run is still going when 40 are journaled
	// (each takes milliseconds; the kill follows the 40th within one poll).
	const n, killAt = 120, 40
	qs := quickstart(t)
	t.Parallel()
	f := newFixture(t, qs).withData(bigDataset(t, qs, n)).withFlags("--workers", "2", "--max-error-rate", "1", "--progress", "plain")
	full := f.newOut() // all named alike: replayed token estimates count the session path
	ref := f.runInto(full)
	if ref.code != 0 {
		t.Fatalf("uninterrupted run: exit %d\nstderr:\n%s", ref.code, ref.stderr)
	}

	killed := f.newOut()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := f.start(ctx, killed)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	await(t, cmd, &stderr, 90*time.Second, fmt.Sprintf("%d cases journaled", killAt), func() bool { return journalLines(killed) >= killAt })
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	before := journalLines(killed)
	if before >= n {
		t.Fatalf("the run finished (%d journal lines) before it was killed", before)
	}
	if _, err := os.Stat(filepath.Join(killed, "results.parquet")); err == nil {
		t.Errorf("a killed run left a results.parquet")
	}

	t.Logf("killed after %d of %d cases were journaled", before, n)
	// show reads the killed run's journal: how many finished, and the
	// command that finishes it.
	shown, _ := runE2E(t, []string{"show", killed})
	if shown.code != 0 {
		t.Fatalf("show of the killed run: exit %d\nstderr:\n%s", shown.code, shown.stderr)
	}
	if want := fmt.Sprintf("Killed before it wrote its summary: %d of %d planned cases finished", before, n); !strings.Contains(shown.stdout, want) {
		t.Errorf("show of the killed run lacks %q:\n%s", want, shown.stdout)
	}
	wantResume := []string{"murmur-eval", qs, "--dataset", f.dataset, "--replay", f.replay, "--resume", killed}
	if diff := gocmp.Diff(wantResume, printedResume(t, shown.stdout, "finish it with: ")); diff != "" {
		t.Errorf("show's resume command (-want +got):\n%s", diff)
	}
	res := f.resume(killed)
	if res.code != 0 {
		t.Fatalf("resume: exit %d\nstderr:\n%s", res.code, res.stderr)
	}
	if want := fmt.Sprintf("%d cases to resume (%d finished)", n-before, before); !strings.Contains(res.stderr, want) {
		t.Errorf("resume stderr lacks %q:\n%s", want, res.stderr)
	}
	want := stableRows(readParquet(t, filepath.Join(full, "results.parquet")))
	gotTbl := readParquet(t, filepath.Join(killed, "results.parquet"))
	got := stableRows(gotTbl)
	checkOncePerPair(t, "resumed", got, n)
	if diff := gocmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("resumed results differ from the uninterrupted run (-want +got):\n%s", diff)
	}
	runIDs := map[any]bool{}
	for _, r := range gotTbl.Rows {
		runIDs[r["run_id"]] = true
	}
	if len(runIDs) != 1 {
		t.Errorf("resumed rows carry %d run ids, want the original one", len(runIDs))
	}
	sessions, _ := os.ReadDir(filepath.Join(killed, "sessions"))
	if len(sessions) != n {
		t.Errorf("%d session folders after resume, want %d (the killed cases' removed)", len(sessions), n)
	}
	for _, name := range []string{"events.parquet", "scores.parquet"} {
		a, b := readParquet(t, filepath.Join(full, name)), readParquet(t, filepath.Join(killed, name))
		if len(a.Rows) != len(b.Rows) {
			t.Errorf("%s: %d rows resumed, %d uninterrupted", name, len(b.Rows), len(a.Rows))
		}
	}
	scoreKey := func(r map[string]any) string {
		return fmt.Sprint(r["case_id"], "|", r["epoch"], "|", r["attempt"], "|", r["scorer"], "|", r["result"], "|", r["score"], "|", r["reason"])
	}
	var sa, sb []string
	for _, r := range readParquet(t, filepath.Join(full, "scores.parquet")).Rows {
		sa = append(sa, scoreKey(r))
	}
	for _, r := range readParquet(t, filepath.Join(killed, "scores.parquet")).Rows {
		sb = append(sb, scoreKey(r))
	}
	slices.Sort(sa)
	slices.Sort(sb)
	if diff := gocmp.Diff(sa, sb); diff != "" {
		t.Errorf("resumed scores differ (-uninterrupted +resumed):\n%s", diff)
	}

	// A changed dataset is refused, naming what changed.
	ds, err := os.OpenFile(f.dataset, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(ds, `{"case_id": "extra", "task": "Say hi."}`)
	ds.Close()
	bad := f.resume(killed)
	if bad.code != exitUsage || !strings.Contains(bad.stderr, "changed since it started: dataset") {
		t.Errorf("resume after a dataset change: exit %d, want %d naming the dataset\nstderr:\n%s", bad.code, exitUsage, bad.stderr)
	}
}

// journalLines counts the complete lines of a run's journal.
func journalLines(dir string) int {
	b, _ := os.ReadFile(filepath.Join(dir, runfolder.JournalFile))
	return bytes.Count(b, []byte("\n"))
}

// TestInterruptedRunResumes: after Ctrl-C the run writes its files with the
// running cases cancelled, says how many cases finished, were cancelled
// and never started (the finished ones are the journal's lines), and prints
// the command that resumes it; that command, run as printed, runs the
// cancelled and unstarted cases and the files end up as an uninterrupted
// run's.
func TestInterruptedRunResumes(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	f := newFixture(t, qs).withData(bigDataset(t, qs, 60)).withFlags("--workers", "2", "--max-error-rate", "1", "--progress", "none")
	full := f.newOut() // all named alike: replayed token estimates count the session path
	if r := f.runInto(full); r.code != 0 {
		t.Fatalf("uninterrupted run: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	stopped := f.newOut()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := f.start(ctx, stopped)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	await(t, cmd, &stderr, 2*time.Minute, "20 cases journaled", func() bool { return journalLines(stopped) >= 20 })
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || cmd.ProcessState.ExitCode() != exitInterrupted {
		t.Fatalf("interrupted run: %v, want exit %d\nstderr:\n%s", err, exitInterrupted, stderr.String())
	}
	rows := len(readParquet(t, filepath.Join(stopped, "results.parquet")).Rows)
	if rows >= 60 {
		t.Fatalf("the run finished (%d rows) before the interrupt", rows)
	}
	finished := journalLines(stopped)
	if want := stoppedLine(60, rows, rows-finished); !strings.Contains(stderr.String(), "run interrupted: "+want+"; their rows are written") {
		t.Errorf("stderr lacks %q (%d journaled, %d rows):\n%s", want, finished, rows, stderr.String())
	}
	resume := printedResume(t, stderr.String(), "murmur-eval: run the rest with: ")
	want := []string{"murmur-eval", qs, "--dataset", f.dataset, "--replay", f.replay, "--resume", stopped}
	if diff := gocmp.Diff(want, resume); diff != "" {
		t.Errorf("printed resume command (-want +got):\n%s", diff)
	}
	// summary.md and show say it too, its paths absolute (they are here).
	if md := readFile(t, filepath.Join(stopped, "summary.md")); !strings.Contains(md, "```sh\n"+shellLine(want)+"\n```") {
		t.Errorf("summary.md lacks the resume command %q:\n%s", shellLine(want), md)
	}
	if r := runBinary(t, "show", stopped); !strings.Contains(r.stdout, "finish it with: "+shellLine(want)+"\n") {
		t.Errorf("show lacks the resume command %q:\n%s", shellLine(want), r.stdout)
	}
	if r, _ := runE2E(t, resume[1:]); r.code != 0 {
		t.Fatalf("the printed resume command: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	got := stableRows(readParquet(t, filepath.Join(stopped, "results.parquet")))
	checkOncePerPair(t, "resumed", got, 60)
	if diff := gocmp.Diff(stableRows(readParquet(t, filepath.Join(full, "results.parquet"))), got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("resumed results differ from the uninterrupted run (-want +got):\n%s", diff)
	}
}

// printedResume is the command line that follows prefix in out, split as a
// shell would split it (shellLine's quoting: single quotes, and a quote
// within them closed, escaped and opened again).
func printedResume(t *testing.T, out, prefix string) []string {
	t.Helper()
	_, line, ok := strings.Cut(out, prefix)
	if !ok {
		t.Fatalf("no %q line in:\n%s", prefix, out)
	}
	line, _, _ = strings.Cut(line, "\n")
	var words []string
	var w strings.Builder
	inWord, quoted, escaped := false, false, false
	for _, r := range line {
		switch {
		case escaped:
			w.WriteRune(r)
			escaped = false
		case r == '\\' && !quoted:
			escaped, inWord = true, true
		case r == '\'':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				words = append(words, w.String())
			}
			w.Reset()
			inWord = false
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}
