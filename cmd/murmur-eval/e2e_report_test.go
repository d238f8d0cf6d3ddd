package main

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// nightPlan is one engineered night: each case's outcome, P (its recorded
// answer holds its token), F (it does not) or E (no recorded turn: the
// replay fails the case with E-EVL-011, a harness error).
type nightPlan map[string]byte

// engineeredNights are six nights of 30 cases: c28–c30 always fail; c07
// flips pass/fail four times; night 3 is a harness outage (c11–c22, 40%
// of the cases, in error); night 6 regresses c01–c06, c08 and c09.
func engineeredNights() (ids []string, nights []nightPlan) {
	for i := 1; i <= 30; i++ {
		ids = append(ids, fmt.Sprintf("c%02d", i))
	}
	flaky := "PFPFPP"
	for n := 1; n <= 6; n++ {
		plan := nightPlan{}
		for i, id := range ids {
			k := i + 1
			switch {
			case k >= 28:
				plan[id] = 'F'
			case k == 7:
				plan[id] = flaky[n-1]
			case n == 3 && k >= 11 && k <= 22:
				plan[id] = 'E'
			case n == 6 && k <= 9:
				plan[id] = 'F'
			default:
				plan[id] = 'P'
			}
		}
		nights = append(nights, plan)
	}
	return ids, nights
}

// nightRun runs one engineered night through the real binary into
// root/<name> and returns the run folder.
func nightRun(t *testing.T, qs, root, name string, ids []string, plan nightPlan) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(qs), "night-"+name)
	rec := filepath.Join(dir, "recordings")
	if err := os.MkdirAll(rec, 0o755); err != nil {
		t.Fatal(err)
	}
	var ds strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&ds, `{"case_id": %q, "task": "Say the token of %s.", "expected": {"result_contains": "token-%s"}}`+"\n", id, id, id)
		var line string
		switch plan[id] {
		case 'P', 'F':
			answer := "token-" + id
			if plan[id] == 'F' {
				answer = "I do not know."
			}
			line = fmt.Sprintf(`{"stop_reason": "end_turn", "content": [{"type": "text", "text": %q}], "usage": {"input_tokens": %d, "output_tokens": 5}}`+"\n", answer, 40+len(ids))
		}
		if err := os.WriteFile(filepath.Join(rec, id+".jsonl"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dataset := filepath.Join(dir, "cases.jsonl")
	if err := os.WriteFile(dataset, []byte(ds.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, name)
	r := runBinary(t, qs, "--dataset", dataset, "--replay", rec, "--out", out, "--workers", "2", "--max-error-rate", "1")
	if r.code != exitOK {
		t.Fatalf("night %s: exit %d\nstdout:\n%s\nstderr:\n%s", name, r.code, r.stdout, r.stderr)
	}
	return out
}

// TestReportOnEngineeredNights runs six engineered nights through the real
// binary, builds the report over them (given out of order) and checks that
// the page states the regression of the last night, the harness outage of
// night 3 and the flaky case, then opens the page in headless Chromium.
func TestReportOnEngineeredNights(t *testing.T) {
	t.Parallel()
	qs := quickstart(t)
	ids, nights := engineeredNights()
	root := filepath.Join(reachableTempDir(t), "runs")
	// Folder names sort against start order: the report must order by the
	// runs' start times, not by name or argument order.
	names := []string{"f", "e", "d", "c", "b", "a"}
	var dirs []string
	for i, plan := range nights {
		dirs = append(dirs, nightRun(t, qs, root, names[i], ids, plan))
		// Distinct millisecond start times: the next night starts once the
		// clock has left the millisecond this one ended in.
		for ended := time.Now().UnixMilli(); time.Now().UnixMilli() <= ended; {
			runtime.Gosched()
		}
	}
	page := filepath.Join(t.TempDir(), "report.html")
	args := append([]string{"report", "-o", page}, dirs[3], dirs[0], dirs[5], dirs[1], dirs[4], dirs[2])
	r := runBinary(t, args...)
	if r.code != exitOK {
		t.Fatalf("report: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	// The findings, as printed and as the page states them.
	want := []*regexp.Regexp{
		regexp.MustCompile(`latest run #6 \(run_[0-9a-f]+, [0-9-]+ [0-9:]+ UTC\): pass rate dropped from 90\.0% to 63\.3% against run #5 \(run_[0-9a-f]+, [^)]*\) \(p=0\.0078, McNemar's exact test: 8 pass→fail, 0 fail→pass\): a regression; regressed scorers: result_contains`),
		regexp.MustCompile(`run #3 \(run_[0-9a-f]+, [^)]*\): harness outage, 40\.0% error or timeout \(12 of 30 cases; E-EVL-011 ×12\), not counted as model failures`),
		regexp.MustCompile(`flaky: c07 flipped 4 times in 6 runs \(P F P F P P\)`),
	}
	for _, re := range want {
		if !re.MatchString(r.stdout) {
			t.Errorf("stdout lacks %q:\n%s", re, r.stdout)
		}
		if !re.MatchString(findingsOf(t, text)) {
			t.Errorf("the page's findings lack %q:\n%s", re, findingsOf(t, text))
		}
	}
	if n := strings.Count(findingsOf(t, text), "<li"); n != 3 {
		t.Errorf("the page has %d findings, want 3 (regression, outage, flaky):\n%s", n, findingsOf(t, text))
	}
	for _, s := range []string{
		`<span id="pass-to-fail">c01, c02, c03, c04, c05, c06, c08, c09</span>`,
		`<td>overall</td><td class="n">90.0%</td><td class="n">63.3%</td>`,
		`<tr><td>c07</td><td class="n">4</td><td class="c s-passed"></td><td class="c s-failed"></td><td class="c s-passed"></td>`,
		`<tr><td>c11</td><td class="n">0</td><td class="c s-passed"></td><td class="c s-passed"></td><td class="c s-error"></td>`,
	} {
		if !strings.Contains(text, s) {
			t.Errorf("the page lacks %s", s)
		}
	}
	// Self-contained: nothing to fetch, no script.
	for _, bad := range []string{"<script", "http://", "https://", "<link", "@import", "src="} {
		if strings.Contains(strings.ReplaceAll(text, `xmlns="http://www.w3.org/2000/svg"`, ""), bad) {
			t.Errorf("the page contains %q: it must be self-contained", bad)
		}
	}
	t.Logf("report over %d runs of %d cases: %d bytes in %s", len(dirs), len(ids), len(data), r.elapsed)
	checkInBrowser(t, page)
}

// findingsOf returns the page's findings list, its entities decoded.
func findingsOf(t *testing.T, page string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<ul id="findings">.*?</ul>`).FindString(page)
	if m == "" {
		t.Fatal("the page has no findings list")
	}
	return html.UnescapeString(m)
}
