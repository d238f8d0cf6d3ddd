package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/runfolder"
)

// Issue 33: journal lines that parse but name a case not in the dataset,
// epoch -1 or a session id with "../" were taken on --resume (a 3-case
// dataset reported 4 cases).

// sessionOfLine is the session id a journal line's record names.
var sessionOfLine = regexp.MustCompile(`"SessionID":"(ses_[0-9a-f]{32})"`)

// TestResumeSkipsForgedJournalLines: a finished 3-case run gets three
// forged lines appended to its journal (an unknown case, epoch -1, and a
// case's own line again with session id "../x"); merge refuses the
// journal at the first of them; --resume reports each at
// journal.jsonl:LINE with the field and why, counts none of them, and
// ends with the 3 cases of the dataset, their own sessions, in every
// output and in the journal.
func TestResumeSkipsForgedJournalLines(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	f := newFixture(t, qs).withData(bigDataset(t, qs, 3)).withFlags("--max-error-rate", "1", "--progress", "none")
	dir := f.newOut()
	if r := f.runInto(dir); r.code != exitOK {
		t.Fatalf("run: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	before := stableRows(readParquet(t, filepath.Join(dir, reports.ResultsFile)))
	ids := make([]string, len(before))
	for i, r := range before {
		ids[i] = r["case_id"].(string)
	}
	path := filepath.Join(dir, runfolder.JournalFile)
	lines := readLines(t, path)
	if len(lines) != 3 {
		t.Fatalf("journal: %d lines, want 3", len(lines))
	}
	caseOf := func(line string) string {
		for _, id := range ids {
			if strings.HasPrefix(line, `{"case_id":"`+id+`"`) {
				return id
			}
		}
		t.Fatalf("journal line of no case: %.100s", line)
		return ""
	}
	// Line 4: a case the dataset does not have, rows and all.
	ghost := strings.ReplaceAll(lines[0], `"`+caseOf(lines[0])+`"`, `"ghost"`)
	// Line 5: epoch -1, in the line and in its rows.
	negative := strings.NewReplacer(`"epoch":1,`, `"epoch":-1,`, `"Epoch":1,`, `"Epoch":-1,`).Replace(lines[1])
	// Line 6: the case's own line again, later, so it would win, with
	// session "../x".
	m := sessionOfLine.FindStringSubmatch(lines[2])
	if m == nil {
		t.Fatalf("journal line 3 names no session: %.300s", lines[2])
	}
	climbing := strings.ReplaceAll(lines[2], m[1], "../x")
	for _, forged := range []string{ghost, negative, climbing} {
		if forged == lines[0] || forged == lines[1] || forged == lines[2] {
			t.Fatalf("a forged line is unchanged: %.200s", forged)
		}
	}
	jf, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jf.WriteString(ghost + "\n" + negative + "\n" + climbing + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := jf.Close(); err != nil {
		t.Fatal(err)
	}

	// merge, which takes a shard's journal whole or not at all, refuses it
	// at the first forged line (it took all three before).
	r := runBinary(t, "merge", "-o", filepath.Join(t.TempDir(), "merged"), dir)
	if r.code != exitUsage || !hasCode(r.stderr, errcode.JournalCorrupt) ||
		!strings.Contains(r.stderr, runfolder.JournalFile+`:4`) || !strings.Contains(r.stderr, `case_id "ghost": not a case of the run's selection`) {
		t.Errorf("merge of the forged journal: exit %d, want %d with %s at %s:4 naming the case\nstderr:\n%s", r.code, exitUsage, errcode.JournalCorrupt, runfolder.JournalFile, r.stderr)
	}

	r = f.resume(dir)
	if r.code != exitOK {
		t.Fatalf("resume: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"3 lines could not be read or are not of this run",
		runfolder.JournalFile + `:4: case_id "ghost": not a case of the run's selection`,
		runfolder.JournalFile + ":5: epoch -1: outside the run's epochs 1..1",
		runfolder.JournalFile + `:6: record attempt 1: session_id "../x": not one path element`,
		"0 cases to resume (3 finished)",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("resume stderr lacks %q:\n%s", want, r.stderr)
		}
	}

	after := stableRows(readParquet(t, filepath.Join(dir, reports.ResultsFile)))
	var got []string
	for _, row := range after {
		got = append(got, row["case_id"].(string))
		if row["epoch"].(int32) != 1 {
			t.Errorf("case %v: epoch %v, want 1", row["case_id"], row["epoch"])
		}
	}
	if !slices.Equal(got, ids) {
		t.Errorf("results.parquet after resume: cases %q, want the dataset's %q", got, ids)
	}
	own := caseOf(lines[2])
	for _, row := range readParquet(t, filepath.Join(dir, reports.ResultsFile)).Rows {
		if row["case_id"] == own && row["session_id"] != m[1] {
			t.Errorf("case %s: session_id %q, want its own %q", own, row["session_id"], m[1])
		}
	}
	if d := readDigest(t, dir); d.Cases != 3 {
		t.Errorf("summary.json: %d cases, want 3", d.Cases)
	}
	if n := len(wholeJournal(t, dir)); n != 3 {
		t.Errorf("journal after resume: %d lines, want 3 (the forged ones dropped)", n)
	}
}
