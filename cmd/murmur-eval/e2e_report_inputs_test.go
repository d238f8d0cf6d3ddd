package main

import (
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportSaysWhenRunsDifferInInputs (issue 39, finding 9): report over
// runs of different datasets or capsules says so, naming which runs
// differ and in what, on stderr and on the page; it still writes the page
// (a dashboard over a dataset changed on purpose is legitimate). Runs of
// the same inputs draw no such note.
func TestReportSaysWhenRunsDifferInInputs(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	f := newFixture(t, qs)
	first, r := f.run()
	if r.code != exitOK {
		t.Fatalf("run 1: exit %d\n%s", r.code, r.stderr)
	}
	same, r := f.run()
	if r.code != exitOK {
		t.Fatalf("run 2: exit %d\n%s", r.code, r.stderr)
	}
	lines := readLines(t, filepath.Join(qs, "cases.jsonl"))
	fewer := f.withData(filepath.Join(qs, "fewer.jsonl"), filepath.Join(qs, "recordings")).writeCases(lines[:len(lines)-1]...)
	otherData, r := fewer.run()
	if r.code != exitOK {
		t.Fatalf("run 3: exit %d\n%s", r.code, r.stderr)
	}
	manifest := filepath.Join(qs, "murmur.yaml")
	writeFile(t, manifest, readFile(t, manifest)+"\n# edited between nights\n")
	otherCapsule, r := fewer.run()
	if r.code != exitOK {
		t.Fatalf("run 4: exit %d\n%s", r.code, r.stderr)
	}

	page := filepath.Join(t.TempDir(), "report.html")
	rep := runBinary(t, "report", first, same, "-o", page)
	if rep.code != exitOK || strings.Contains(rep.stderr, "warning") || strings.Contains(rep.stdout, "another dataset") {
		t.Errorf("report over runs of the same inputs: exit %d, want 0 and no note\nstdout:\n%s\nstderr:\n%s", rep.code, rep.stdout, rep.stderr)
	}

	rep = runBinary(t, "report", first, same, otherData, otherCapsule, "-o", page)
	if rep.code != exitOK {
		t.Fatalf("report: exit %d, want 0 (a warning, not a refusal)\n%s", rep.code, rep.stderr)
	}
	wantData := "run #3 (" + runIDOf(t, otherData) + ", "
	wantCapsule := "run #4 (" + runIDOf(t, otherCapsule) + ", "
	for _, want := range []string{
		"murmur-eval report: warning: " + wantData, "is of another dataset than run #2 (" + runIDOf(t, same) + ", ", "the dataset file's lines",
		"murmur-eval report: warning: " + wantCapsule, "is of another capsule than run #3", "murmur.yaml",
	} {
		if !strings.Contains(rep.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, rep.stderr)
		}
	}
	if strings.Contains(rep.stderr, "run #2 (") && strings.Contains(rep.stderr, "warning: run #2") {
		t.Errorf("run #2 has the inputs of run #1, yet is warned about:\n%s", rep.stderr)
	}
	body := html.UnescapeString(readFile(t, page))
	if !strings.Contains(body, `data-kind="inputs"`) || !strings.Contains(body, wantData) || !strings.Contains(body, wantCapsule) {
		t.Errorf("the page has no inputs note naming runs #3 and #4")
	}
}

// runIDOf reads the run id from a run folder's run.json.
func runIDOf(t *testing.T, out string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(b), `"run_id": "`)
	id, _, _ := strings.Cut(rest, `"`)
	return id
}
