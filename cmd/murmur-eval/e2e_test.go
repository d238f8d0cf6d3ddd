package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
)

// These tests exec the real murmur-eval binary on real capsules, WASM tools
// and recordings, and read its outputs back: results.parquet and
// events.parquet with arrow-go, the session folders from disk. The helpers
// are in e2e_helpers_test.go.

// quickstartExit is the session exit status of each quickstart case whose
// status is not passed (a passed case ends with "ok").
var quickstartExit = map[string]string{
	"model-error":  "failed",
	"runaway-loop": "max_turns_reached",
}

func TestQuickstartEndToEnd(t *testing.T) {
	t.Parallel()
	qs := quickstart(t)
	out, r := newFixture(t, qs).run("--workers", "3")
	if r.code != exitOK {
		t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, exitOK, r.stdout, r.stderr)
	}

	ids := datasetIDs(t, filepath.Join(qs, "cases.jsonl"))
	expected := readExpectedStatuses(t, filepath.Join(qs, "expected-statuses.json"))
	if got, want := len(expected), len(ids); got != want {
		t.Fatalf("expected-statuses.json has %d cases, cases.jsonl %d", got, want)
	}
	counts := map[string]int{}
	for _, s := range expected {
		counts[s]++
	}
	summary := regexp.MustCompile(fmt.Sprintf(`(?m)^%d cases in \S+: %d passed, %d failed$`,
		len(ids), counts["passed"], counts["failed"]))
	if !summary.MatchString(r.stdout) {
		t.Errorf("stdout has no summary line matching %q:\n%s", summary, r.stdout)
	}

	results := readParquet(t, filepath.Join(out, "results.parquet"))
	if diff := gocmp.Diff(resultsColumns, results.Columns); diff != "" {
		t.Errorf("results.parquet columns differ from docs/output-columns.md (-want +got):\n%s", diff)
	}
	if got, want := len(results.Rows), len(ids); got != want {
		t.Fatalf("results.parquet has %d rows, want %d (one per case)", got, want)
	}
	byCase := rowsByCase(t, results)
	runIDs := map[any]bool{}
	sessions := map[string]map[string]any{} // session_id to its results row
	traceLines := map[string][]string{}     // session_id to its trace.jsonl lines
	tasks := datasetTasks(t, filepath.Join(qs, "cases.jsonl"))
	for _, id := range ids {
		row, ok := byCase[id]
		if !ok {
			t.Errorf("results.parquet has no row for case %q", id)
			continue
		}
		runIDs[row["run_id"]] = true
		sid, _ := row["session_id"].(string)
		if _, dup := sessions[sid]; dup {
			t.Errorf("case %q: session_id %q is also another case's", id, sid)
		}
		sessions[sid] = row

		wantStatus := expected[id]
		wantExit := "ok"
		if wantStatus != "passed" {
			var known bool
			if wantExit, known = quickstartExit[id]; !known {
				t.Fatalf("case %q: the test does not know the exit status of a %s case", id, wantStatus)
			}
		}
		if got := row["status"]; got != wantStatus {
			t.Errorf("case %q: status %v, want %s", id, got, wantStatus)
		}
		if got := row["exit_status"]; got != wantExit {
			t.Errorf("case %q: exit_status %v, want %s", id, got, wantExit)
		}
		for _, col := range []string{"error_code", "error_stage", "error_message"} {
			if got := row[col]; got != nil {
				t.Errorf("case %q: %s %v, want null", id, col, got)
			}
		}
		// docs/output-columns.md: epoch is the 1-based repetition of the
		// case; this run does not repeat cases.
		if got := row["epoch"]; got != int32(1) {
			t.Errorf("case %q: epoch %v, want 1 (1-based, docs/output-columns.md)", id, got)
		}
		for _, col := range stageColumns {
			if v, ok := row[col].(float64); !ok || v < 0 {
				t.Errorf("case %q: %s %v, want a number >= 0", id, col, row[col])
			}
		}
		if v, ok := row["duration_ms"].(float64); !ok || v < 0 {
			t.Errorf("case %q: duration_ms %v, want a number >= 0", id, row["duration_ms"])
		}
		if ts, ok := row["started_at"].(time.Time); !ok || ts.Before(time.Now().Add(-time.Hour)) || ts.After(time.Now()) {
			t.Errorf("case %q: started_at %v, want a time within the last hour", id, row["started_at"])
		}
		for col, want := range map[string]any{"capsule_name": "quickstart", "capsule_version": "0.1.0", "model": "claude-sonnet-4-5"} {
			if got := row[col]; got != want {
				t.Errorf("case %q: %s %v, want %v", id, col, got, want)
			}
		}

		// The session folder.
		rel, _ := row["session_dir"].(string)
		if want := "sessions/" + sid; rel != want {
			t.Errorf("case %q: session_dir %q, want %q", id, rel, want)
		}
		dir := filepath.Join(out, filepath.FromSlash(rel))
		for _, f := range []string{"trace.jsonl", "out/result.txt", "task.md"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("case %q: session folder lacks %s: %v", id, f, err)
			}
		}
		if got, err := os.ReadFile(filepath.Join(dir, "task.md")); err == nil && string(got) != tasks[id] {
			t.Errorf("case %q: task.md is %q, want the dataset's task %q", id, got, tasks[id])
		}
		lines := readLines(t, filepath.Join(dir, "trace.jsonl"))
		traceLines[sid] = lines
		for i, l := range lines {
			if e := parseEvent(t, l); e.SessionID != sid {
				t.Errorf("case %q: trace line %d has session_id %q, want %q", id, i, e.SessionID, sid)
			}
		}
		end := sessionEnd(t, lines)
		for _, c := range []struct {
			col  string
			got  any
			want any
		}{
			{"turns", row["turns"], end.TotalTurns},
			{"tool_calls", row["tool_calls"], end.TotalToolCalls},
			{"input_tokens", row["input_tokens"], end.TotalInput},
			{"output_tokens", row["output_tokens"], end.TotalOutput},
			{"exit_status", row["exit_status"], end.ExitStatus},
		} {
			if c.got != c.want {
				t.Errorf("case %q: %s %v, want %v (the trace's session_end)", id, c.col, c.got, c.want)
			}
		}
		if wantStatus == "passed" {
			got, err := os.ReadFile(filepath.Join(dir, "out", "result.txt"))
			want := lastAnswer(t, recordingPath(filepath.Join(qs, "recordings"), id))
			if err == nil && string(got) != want {
				t.Errorf("case %q: out/result.txt is %q, want the last recorded answer %q", id, got, want)
			}
		}
	}
	if len(runIDs) != 1 {
		t.Errorf("results.parquet has run_ids %v, want one run_id in every row", runIDs)
	}

	events := readParquet(t, filepath.Join(out, "events.parquet"))
	if diff := gocmp.Diff(eventsColumns, events.Columns); diff != "" {
		t.Errorf("events.parquet columns differ from docs/output-columns.md (-want +got):\n%s", diff)
	}
	checkEvents(t, events, sessions, traceLines)
	checkScoringOutputs(t, out, results)
}

// checkEvents checks that events.parquet holds exactly the lines of every
// session's trace.jsonl, in seq order, with columns that agree with the JSON.
func checkEvents(t *testing.T, events table, sessions map[string]map[string]any, traceLines map[string][]string) {
	t.Helper()
	total := 0
	for _, lines := range traceLines {
		total += len(lines)
	}
	if got := len(events.Rows); got != total {
		t.Errorf("events.parquet has %d rows, want %d (the lines of all trace.jsonl files)", got, total)
	}
	bySession := map[string][]map[string]any{}
	for _, e := range events.Rows {
		sid, _ := e["session_id"].(string)
		bySession[sid] = append(bySession[sid], e)
	}
	for sid := range bySession {
		if _, ok := sessions[sid]; !ok {
			t.Errorf("events.parquet has events of session %q, which has no results row", sid)
		}
	}
	for sid, row := range sessions {
		evs := bySession[sid]
		slices.SortStableFunc(evs, func(a, b map[string]any) int {
			as, _ := a["seq"].(int32)
			bs, _ := b["seq"].(int32)
			return cmp.Compare(as, bs)
		})
		var got []string
		for i, e := range evs {
			got = append(got, fmt.Sprint(e["event_json"]))
			if e["seq"] != int32(i) {
				t.Errorf("session %s: event %d has seq %v, want %d", sid, i, e["seq"], i)
			}
			for _, col := range []string{"run_id", "case_id", "epoch"} {
				if e[col] != row[col] {
					t.Errorf("session %s seq %d: %s %v, want %v (its results row)", sid, i, col, e[col], row[col])
				}
			}
			js, _ := e["event_json"].(string)
			j := parseEvent(t, js)
			if e["event_type"] != j.EventType {
				t.Errorf("session %s seq %d: event_type %v, want %q (event_json)", sid, i, e["event_type"], j.EventType)
			}
			var wantTurn, wantTool any
			if j.Turn != nil {
				wantTurn = *j.Turn
			}
			if j.ToolName != nil {
				wantTool = *j.ToolName
			}
			if e["turn"] != wantTurn {
				t.Errorf("session %s seq %d: turn %v, want %v (event_json)", sid, i, e["turn"], wantTurn)
			}
			if e["tool_name"] != wantTool {
				t.Errorf("session %s seq %d: tool_name %v, want %v (event_json)", sid, i, e["tool_name"], wantTool)
			}
			if ts, ok := e["timestamp"].(time.Time); !ok || ts.UnixMilli() != j.Timestamp {
				t.Errorf("session %s seq %d: timestamp %v, want %d ms (event_json)", sid, i, e["timestamp"], j.Timestamp)
			}
		}
		if diff := gocmp.Diff(traceLines[sid], got); diff != "" {
			t.Errorf("session %s (case %v): event_json in seq order differs from trace.jsonl (-trace +events):\n%s", sid, row["case_id"], diff)
		}
	}
}

func TestStuckToolTimesOutAlone(t *testing.T) {
	t.Parallel()
	dir := hangCapsule(t)

	// No warm-up: the once-per-run WASM compilation happens before the first
	// case starts (Graph.Prepare), so even on a cold cache only the stuck
	// tool may run out of --timeout.
	const timeout = 3 * time.Second
	// A timeout gets no verdict, so it counts against the error budget:
	// one case in four is within 25%.
	out, r := newFixture(t, dir).run("--timeout", timeout.String(), "--workers", "2", "--max-error-rate", "25%")
	t.Logf("timed run: %s", r.elapsed)
	if r.code != exitOK {
		t.Fatalf("exit code %d, want %d (one timeout in four cases is within --max-error-rate 25%%)\nstdout:\n%s\nstderr:\n%s", r.code, exitOK, r.stdout, r.stderr)
	}
	// Generous: four cases on two workers, one stuck for the whole timeout,
	// must not take several timeouts.
	if limit := 30 * time.Second; r.elapsed >= limit {
		t.Errorf("run took %s, want < %s (--timeout %s)", r.elapsed, limit, timeout)
	}

	results := readParquet(t, filepath.Join(out, "results.parquet"))
	byCase := rowsByCase(t, results)
	ids := datasetIDs(t, filepath.Join(dir, "cases.jsonl"))
	if got, want := len(results.Rows), len(ids); got != want {
		t.Fatalf("results.parquet has %d rows, want %d", got, want)
	}
	for _, id := range ids {
		row := byCase[id]
		if id != "hang-forever" {
			if row["status"] != "passed" || row["exit_status"] != "ok" {
				t.Errorf("case %q: status %v, exit_status %v, want passed, ok (a stuck case must not affect it)", id, row["status"], row["exit_status"])
			}
			continue
		}
		for col, want := range map[string]any{"status": "timeout", "error_code": "E-EVL-020", "error_stage": "loop", "exit_status": nil} {
			if got := row[col]; got != want {
				t.Errorf("case %q: %s %v, want %v", id, col, got, want)
			}
		}
		sdir := filepath.Join(out, filepath.FromSlash(fmt.Sprint(row["session_dir"])))
		end := sessionEnd(t, readLines(t, filepath.Join(sdir, "trace.jsonl")))
		if end.ExitStatus != "failed" {
			t.Errorf("case %q: trace's session_end has exit_status %q, want failed (murmur's fallback)", id, end.ExitStatus)
		}
		res, err := os.ReadFile(filepath.Join(sdir, "out", "result.txt"))
		if err != nil {
			t.Errorf("case %q: %v", id, err)
		} else if !strings.HasPrefix(string(res), "error:") {
			t.Errorf("case %q: out/result.txt is %q, want it to start with %q", id, res, "error:")
		}
	}
}

// TestTamperedArtifactFailsEveryCase: an artifact whose bytes do not match
// refuses the capsule while it is prepared (E-REG-002): no case starts,
// the error is the last thing printed, nothing is left in the run folder,
// exit 2 (issue 39, finding 7: it was a row per case and a summary).
func TestTamperedArtifactFailsEveryCase(t *testing.T) {
	t.Parallel()
	qs := quickstart(t)
	zip := filepath.Join(qs, ".murmur", "artifacts", "calc", "0.1.0", "calc-0.1.0.mur.zip")
	data, err := os.ReadFile(zip)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(zip, data, 0o644); err != nil {
		t.Fatal(err)
	}

	out, r := newFixture(t, qs).run("--workers", "3")
	if r.code != exitUsage {
		t.Fatalf("exit code %d, want %d (a refused capsule)\nstdout:\n%s\nstderr:\n%s", r.code, exitUsage, r.stdout, r.stderr)
	}
	if !regexp.MustCompile(`(?m)^error\[E-REG-002\]`).MatchString(r.stderr) || strings.Count(r.stderr, "error[E-REG-002]") != 1 {
		t.Errorf("stderr does not name error[E-REG-002] once:\n%s", r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("a refused capsule printed a summary:\n%s", r.stdout)
	}
	for _, name := range []string{"results.parquet", "sessions"} {
		if _, err := os.Stat(filepath.Join(out, name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want it absent (no case ran)", name, err)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	e2eBinary(t)
	qs := copyCapsule(t, "examples/quickstart") // usage errors come before any tool is needed
	dataset := filepath.Join(qs, "cases.jsonl")
	recordings := filepath.Join(qs, "recordings")
	writeFile := func(t *testing.T, path, text string) string {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	tests := []struct {
		name string
		// args returns the arguments, given a --out folder that does not
		// exist yet and a scratch folder.
		args     func(t *testing.T, out, scratch string) []string
		wantCode string
		wantText string // also in stderr, when set
	}{
		{
			// --dataset defaults to ./eval.jsonl as mur eval run's does;
			// none there is murmur's "no dataset found".
			name: "missing dataset",
			args: func(t *testing.T, out, _ string) []string {
				return []string{qs, "--replay", recordings, "--out", out}
			},
			wantCode: "E-IO-001",
			wantText: "no dataset found",
		},
		{
			name: "bad dataset line",
			args: func(t *testing.T, out, scratch string) []string {
				ds := writeFile(t, filepath.Join(scratch, "broken.jsonl"), "{\"case_id\": \"a\", \"task\": \"x\"}\n{\"case_id\": nope}\n")
				return []string{qs, "--dataset", ds, "--replay", recordings, "--out", out}
			},
			wantCode: "E-EVAL-001",
			wantText: "broken.jsonl:2",
		},
		{
			name: "duplicate case_id",
			args: func(t *testing.T, out, scratch string) []string {
				ds := writeFile(t, filepath.Join(scratch, "dup.jsonl"), "{\"case_id\": \"a\", \"task\": \"x\"}\n\n{\"case_id\": \"a\", \"task\": \"y\"}\n")
				return []string{qs, "--dataset", ds, "--replay", recordings, "--out", out}
			},
			wantCode: "E-EVAL-001",
			wantText: "dup.jsonl:3",
		},
		{
			name: "missing replay folder",
			args: func(t *testing.T, out, scratch string) []string {
				return []string{qs, "--dataset", dataset, "--replay", filepath.Join(scratch, "no-such-dir"), "--out", out}
			},
			wantCode: "E-IO-001",
		},
		{
			name: "zero workers",
			args: func(t *testing.T, out, _ string) []string {
				return []string{qs, "--dataset", dataset, "--replay", recordings, "--out", out, "--workers", "0"}
			},
			wantCode: "E-EVL-001",
		},
		{
			name: "non-empty out",
			args: func(t *testing.T, out, _ string) []string {
				if err := os.MkdirAll(out, 0o755); err != nil {
					t.Fatal(err)
				}
				writeFile(t, filepath.Join(out, "old-results.txt"), "a previous run\n")
				return []string{qs, "--dataset", dataset, "--replay", recordings, "--out", out}
			},
			wantCode: "E-EVL-001",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			scratch := t.TempDir()
			out := filepath.Join(scratch, "run")
			r := runBinary(t, tt.args(t, out, scratch)...)
			if r.code != exitUsage {
				t.Errorf("exit code %d, want %d\nstderr:\n%s", r.code, exitUsage, r.stderr)
			}
			if !regexp.MustCompile(`(?m)^error\[` + regexp.QuoteMeta(tt.wantCode) + `\]`).MatchString(r.stderr) {
				t.Errorf("stderr:\n%s\nwant a line starting error[%s]", r.stderr, tt.wantCode)
			}
			if tt.wantText != "" && !strings.Contains(r.stderr, tt.wantText) {
				t.Errorf("stderr:\n%s\nwant it to name %q", r.stderr, tt.wantText)
			}
			for _, f := range []string{"results.parquet", "events.parquet"} {
				if _, err := os.Stat(filepath.Join(out, f)); err == nil {
					t.Errorf("%s was written, want nothing run", f)
				}
			}
		})
	}
}

func TestMissingRecordingIsACaseError(t *testing.T) {
	t.Parallel()
	qs := quickstart(t)
	const missing = "calc-multiply"
	if err := os.Remove(recordingPath(filepath.Join(qs, "recordings"), missing)); err != nil {
		t.Fatal(err)
	}
	out, r := newFixture(t, qs).run("--workers", "3")
	if r.code != exitErrorBudget {
		t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, exitErrorBudget, r.stdout, r.stderr)
	}
	expected := readExpectedStatuses(t, filepath.Join(qs, "expected-statuses.json"))
	results := readParquet(t, filepath.Join(out, "results.parquet"))
	if got, want := len(results.Rows), len(expected); got != want {
		t.Errorf("results.parquet has %d rows, want %d", got, want)
	}
	for id, row := range rowsByCase(t, results) {
		if id != missing {
			if got, want := row["status"], expected[id]; got != want {
				t.Errorf("case %q: status %v, want %s", id, got, want)
			}
			continue
		}
		for col, want := range map[string]any{"status": "error", "error_code": "E-EVL-010", "error_stage": "launch", "exit_status": nil, "loop_ms": nil} {
			if got := row[col]; got != want {
				t.Errorf("case %q: %s %v, want %v", id, col, got, want)
			}
		}
		if _, ok := row["report_ms"].(float64); !ok {
			t.Errorf("case %q: report_ms %v, want a number (report always runs)", id, row["report_ms"])
		}
	}
}

// readExpectedStatuses reads expected-statuses.json: case_id to status.
func readExpectedStatuses(t testing.TB, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]string
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// datasetTasks returns each case's task text: the inline task, or the
// task_path file's content (relative to the dataset's folder).
func datasetTasks(t testing.TB, dataset string) map[string]string {
	t.Helper()
	tasks := map[string]string{}
	for _, l := range readLines(t, dataset) {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var c struct {
			ID       string `json:"case_id"`
			Task     string `json:"task"`
			TaskPath string `json:"task_path"`
		}
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatalf("%s: %v", dataset, err)
		}
		tasks[c.ID] = c.Task
		if c.TaskPath != "" {
			data, err := os.ReadFile(filepath.Join(filepath.Dir(dataset), c.TaskPath))
			if err != nil {
				t.Fatal(err)
			}
			tasks[c.ID] = string(data)
		}
	}
	return tasks
}

// lastAnswer returns the text of a recording's last line, the model's final
// answer (end_turn or max_tokens).
func lastAnswer(t testing.TB, recording string) string {
	t.Helper()
	lines := readLines(t, recording)
	if len(lines) == 0 {
		t.Fatalf("%s is empty", recording)
	}
	var resp struct {
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &resp); err != nil {
		t.Fatalf("%s: %v", recording, err)
	}
	var text []string
	for _, c := range resp.Content {
		if c.Type == "text" {
			text = append(text, c.Text)
		}
	}
	if len(text) != 1 {
		t.Fatalf("%s: last line has %d text blocks, the test expects one", recording, len(text))
	}
	return text[0]
}
