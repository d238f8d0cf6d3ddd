package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// budgetCapsule is the quickstart against a local stand-in for Anthropic's
// Messages API serving its recordings (runaway-loop calls the calculator
// at every turn until max_turns), with a dataset of the cases ids only.
// It returns the capsule folder and the dataset.
func budgetCapsule(t *testing.T, ids ...string) (string, string) {
	t.Helper()
	dir := quickstart(t)
	srv := anthropicFromRecordings(t, dir, nil)
	useEndpoint(t, dir, srv.URL)
	dataset := filepath.Join(dir, "cases.jsonl")
	if len(ids) > 0 {
		var lines []string
		for _, l := range readLines(t, dataset) {
			var c struct {
				ID string `json:"case_id"`
			}
			if json.Unmarshal([]byte(l), &c) == nil && slices.Contains(ids, c.ID) {
				lines = append(lines, l)
			}
		}
		dataset = filepath.Join(dir, "budget.jsonl")
		writeFile(t, dataset, strings.Join(lines, "\n")+"\n")
	}
	return dir, dataset
}

// budgetSummary is what the budget tests read of summary.json.
type budgetSummary struct {
	Complete      bool           `json:"complete"`
	Stopped       string         `json:"stopped"`
	Planned       int            `json:"planned"`
	Ran           int            `json:"ran"`
	Resumed       int            `json:"resumed"`
	ResumeCommand string         `json:"resume_command"`
	Statuses      map[string]int `json:"statuses"`
}

func readBudgetSummary(t *testing.T, out string) budgetSummary {
	t.Helper()
	var s budgetSummary
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(out, "summary.json"))), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCaseBudgetEndsLoop: --case-max-tokens and --case-max-cost end
// runaway-loop's loop after the turn that reaches them (turn 2 of its 4:
// 670 then 750 tokens, $0.0025 then $0.0027 at the built-in Sonnet 4.5
// price), before its tool calls: status over_budget, exit_status
// budget_reached in the row and the trace, unscored (so the error budget,
// by default none, exits 3); direct-answer, one turn, passes.
func TestCaseBudgetEndsLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir, dataset := budgetCapsule(t, "runaway-loop", "direct-answer")
	t.Parallel()
	for _, flags := range [][]string{{"--case-max-tokens", "1000"}, {"--case-max-cost", "0.004"}} {
		t.Run(flags[0], func(t *testing.T) {
			out := filepath.Join(reachableTempDir(t), "run")
			r := runBinary(t, append([]string{dir, "--dataset", dataset, "--out", out, "--workers", "2", "--driver", "builtin"}, flags...)...)
			if r.code != exitErrorBudget {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", r.code, exitErrorBudget, r.stderr)
			}
			rows := resultsByCase(t, out)
			loop := rows["runaway-loop"]
			got := []any{loop["status"], loop["exit_status"], loop["turns"], loop["error_code"], rows["direct-answer"]["status"]}
			want := []any{"over_budget", "budget_reached", int32(2), nil, "passed"}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("runaway-loop status, exit_status, turns, error_code, direct-answer status: got %v, want %v", got, want)
					break
				}
			}
			session := filepath.Join(out, loop["session_dir"].(string))
			if end := sessionEnd(t, readLines(t, filepath.Join(session, "trace.jsonl"))); end.ExitStatus != "budget_reached" || end.TotalTurns != 2 {
				t.Errorf("trace session_end: exit_status %q after %d turns, want budget_reached after 2", end.ExitStatus, end.TotalTurns)
			}
			if text := readFile(t, filepath.Join(session, "out", "result.txt")); !strings.HasPrefix(text, "error: case budget reached: ") || !strings.Contains(text, flags[0]) {
				t.Errorf("out/result.txt: %q, want the budget reached, naming %s", text, flags[0])
			}
			s := readBudgetSummary(t, out)
			if s.Statuses["over_budget"] != 1 || !s.Complete {
				t.Errorf("summary.json: statuses %v, complete %v; want over_budget 1, complete", s.Statuses, s.Complete)
			}
			if !strings.Contains(r.stdout, "over_budget") {
				t.Errorf("terminal summary names no over_budget case:\n%s", r.stdout)
			}
			if junit := readFile(t, filepath.Join(out, "junit.xml")); !strings.Contains(junit, `message="over_budget: `) {
				t.Errorf("junit.xml: runaway-loop is not an error over_budget:\n%.2000s", junit)
			}
		})
	}
}

// TestCostLimitNeedsPrice: a cost limit on a model without a price is a
// usage error before any case, naming the model and --prices.
func TestCostLimitNeedsPrice(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir, dataset := budgetCapsule(t, "direct-answer")
	editFile(t, filepath.Join(dir, "murmur.yaml"), "model: claude-sonnet-4-5", "model: house-model-7")
	t.Parallel()
	for _, flag := range []string{"--max-cost", "--case-max-cost"} {
		r := runBinary(t, dir, "--dataset", dataset, "--out", filepath.Join(t.TempDir(), "run"), "--driver", "builtin", flag, "1")
		if r.code != exitUsage || !hasCode(r.stderr, "E-EVL-001") || !strings.Contains(r.stderr, `"house-model-7"`) || !strings.Contains(r.stderr, "--prices") {
			t.Errorf("%s on an unpriced model: exit %d, want %d with E-EVL-001 naming the model and --prices\nstderr:\n%s", flag, r.code, exitUsage, r.stderr)
		}
	}
}

// TestMaxCostStopsAndResumes: --max-cost stops starting cases once the
// quickstart's first cases spent it (each costs about $0.005): the run is
// incomplete (stopped "budget", exit 6, the resume command printed and in
// summary.json, with the case limit and without --max-cost). Resumed
// with the same limit it starts nothing (the journaled cases' cost
// counts); resumed without one it finishes: the two invocations give
// every case exactly once.
func TestMaxCostStopsAndResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir, dataset := budgetCapsule(t)
	t.Parallel()
	out := filepath.Join(reachableTempDir(t), "run")
	// A case limit no case reaches: part of the fingerprint and of the
	// resume command, unlike --max-cost.
	args := []string{dir, "--dataset", dataset, "--workers", "1", "--driver", "builtin", "--case-max-tokens", "100000"}
	r := runBinary(t, append(args, "--out", out, "--max-cost", "0.012")...)
	if r.code != exitBudgetStopped {
		t.Fatalf("first run: exit %d, want %d\nstderr:\n%s", r.code, exitBudgetStopped, r.stderr)
	}
	first := readBudgetSummary(t, out)
	if first.Complete || first.Stopped != "budget" || first.Ran == 0 || first.Ran >= first.Planned || !strings.Contains(first.ResumeCommand, "--resume") {
		t.Errorf("first run's summary.json: %+v; want incomplete, stopped budget, some but not all of the planned cases, a resume command", first)
	}
	if strings.Contains(first.ResumeCommand, "--max-cost") || !strings.Contains(first.ResumeCommand, "--case-max-tokens 100000") {
		t.Errorf("resume command: %s; want --case-max-tokens and not --max-cost", first.ResumeCommand)
	}
	for _, want := range []string{"--max-cost reached: $", "not started", "run the rest with", "--resume " + out} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("first run's stderr has no %q:\n%s", want, r.stderr)
		}
	}
	ran := len(resultsByCase(t, out))
	if show := runBinary(t, "show", out); show.code != 0 || !strings.Contains(show.stdout, "Stopped (--max-cost reached): ") || !strings.Contains(show.stdout, "finish it with: ") {
		t.Errorf("show: exit %d, want the budget stop and the resume command:\n%s%s", show.code, show.stdout, show.stderr)
	}
	if md := readFile(t, filepath.Join(out, "summary.md")); !strings.Contains(md, "Stopped (--max-cost reached)") || !strings.Contains(md, "Run the rest with") {
		t.Errorf("summary.md says nothing of the budget stop:\n%.1500s", md)
	}

	r = runBinary(t, append(args, "--resume", out, "--max-cost", "0.012")...)
	if again := readBudgetSummary(t, out); r.code != exitBudgetStopped || again.Ran != ran || again.Stopped != "budget" {
		t.Errorf("resume under the same --max-cost: exit %d, ran %d (want %d, exit %d: the journaled cases spent it)\nstderr:\n%s", r.code, again.Ran, ran, exitBudgetStopped, r.stderr)
	}

	r = runBinary(t, append(args, "--resume", out)...)
	if r.code != exitOK {
		t.Fatalf("resume: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	last := readBudgetSummary(t, out)
	if !last.Complete || last.Stopped != "" || last.Ran != last.Planned || last.Resumed != ran {
		t.Errorf("resumed run's summary.json: %+v; want complete, every planned case, %d resumed", last, ran)
	}
	rows := resultsByCase(t, out) // fails on a case with two rows
	ids := datasetIDs(t, dataset)
	for _, id := range ids {
		if _, ok := rows[id]; !ok {
			t.Errorf("case %s has no row after the resume", id)
		}
	}
	if len(rows) != len(ids) {
		t.Errorf("%d rows, want the dataset's %d cases", len(rows), len(ids))
	}
}
