package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestShowCasePrintsTheTranscript: `show RUN --case ID` prints a case's
// conversation from its session folder: the task, each turn's answer, the
// tool calls with their inputs and the results the model was sent, the end
// and the scores with their reasons, the case's cost beside its tokens
// (none in a run without prices); a hostile answer (terminal escape,
// bidi override) is printed escaped, and no colour reaches a pipe. An
// unknown case is a usage error with a did-you-mean.
func TestShowCasePrintsTheTranscript(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	recs := filepath.Join(qs, "recordings")
	dataset := filepath.Join(qs, "cases-show.jsonl")
	two, err := os.ReadFile(filepath.Join(qs, "cases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for line := range strings.Lines(string(two)) {
		if strings.Contains(line, `"calc-two-calls"`) {
			lines = append(lines, strings.TrimSpace(line))
		}
	}
	lines = append(lines, answeringCase(t, qs, recs, "hostile", hostileAnswer, map[string]any{"result_contains": "Echoed"}))
	writeFile(t, dataset, strings.Join(lines, "\n")+"\n")
	out, r := newFixture(t, qs).withData(dataset, recs).run()
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}

	got := runBinary(t, "show", out, "--case", "calc-two-calls")
	if got.code != 0 {
		t.Fatalf("show --case: exit %d\n%s", got.code, got.stderr)
	}
	if !regexp.MustCompile(`case calc-two-calls · epoch 1 · attempt 1 · passed · 2 turns · \d+ in / \d+ out tokens · cost \$0\.\d+( \(estimated\))? · \d+ ms\n`).MatchString(got.stdout) {
		t.Errorf("show --case of a priced run lacks the case's cost beside its tokens:\n%s", got.stdout)
	}
	for _, want := range []string{
		"case calc-two-calls · epoch 1 · attempt 1 · passed",
		"A jacket costs 240 euros",
		"turn 0 · tool_call",
		"  → calc\n    {\"expression\":\"240 * 12.5 / 100\"}\n  ← calc:\n    30\n",
		"turn 1 · end_turn",
		"end: ok",
		"pass result_contains: result contains",
	} {
		if !strings.Contains(got.stdout, want) {
			t.Errorf("show --case lacks %q:\n%s", want, got.stdout)
		}
	}

	hostile := runBinary(t, "show", out, "--case", "hostile")
	if hostile.code != 0 {
		t.Fatalf("show --case hostile: exit %d\n%s", hostile.code, hostile.stderr)
	}
	if strings.ContainsAny(hostile.stdout, "\x1b\u202e") {
		t.Errorf("a terminal escape or bidi override reached the terminal:\n%q", hostile.stdout)
	}
	for _, want := range []string{`line two \u001b[31mred\u202eevil.exe`, "fail result_contains"} {
		if !strings.Contains(hostile.stdout, want) {
			t.Errorf("show --case hostile lacks %q:\n%s", want, hostile.stdout)
		}
	}

	// A run without prices: no cost, and none said.
	unpriced, r := newFixture(t, qs).withData(dataset, recs).run("--prices", "off")
	if r.code != 0 {
		t.Fatalf("--prices off: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if got := runBinary(t, "show", unpriced, "--case", "calc-two-calls"); got.code != 0 ||
		!regexp.MustCompile(`^case calc-two-calls · epoch 1 · attempt 1 · passed · 2 turns · \d+ in / \d+ out tokens · \d+ ms\n`).MatchString(got.stdout) {
		t.Errorf("show --case of a run without prices: exit %d, want no cost line:\n%s", got.code, got.stdout)
	}

	unknown := runBinary(t, "show", out, "--case", "calc-two-call")
	if unknown.code != 2 || !hasCode(unknown.stderr, "E-EVL-001") || !strings.Contains(unknown.stderr, `did you mean "calc-two-calls"?`) {
		t.Errorf("an unknown case: exit %d\n%s", unknown.code, unknown.stderr)
	}
	both := runBinary(t, "show", out, "--case", "hostile", "--json")
	if both.code != 2 {
		t.Errorf("--case with --json: exit %d, want 2", both.code)
	}
}
