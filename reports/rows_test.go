package reports

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// writeAll streams rows through a Sink at path and fails the test on error.
func writeAll[T any](t testing.TB, path string, rowsPerGroup int, rows []T) {
	t.Helper()
	writeLayout(t, path, Layout{RowsPerGroup: rowsPerGroup}, rows)
}

// writeLayout is writeAll with the whole layout given.
func writeLayout[T any](t testing.TB, path string, l Layout, rows []T) {
	t.Helper()
	s, err := NewSink[T](path, l)
	if err != nil {
		t.Fatalf("NewSink(%s): %v", path, err)
	}
	ch := make(chan T)
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), ch) }()
	for _, r := range rows {
		ch <- r
	}
	close(ch)
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got, want := s.Count(), int64(len(rows)); got != want {
		t.Errorf("Count() = %d, want %d", got, want)
	}
}

func TestResultRowColumns(t *testing.T) {
	ts := "timestamp[ms, tz=UTC]"
	want := []column{
		{"run_id", "utf8", false}, {"case_id", "utf8", false}, {"epoch", "int32", false},
		{"session_id", "utf8", false}, {"status", "utf8", false},
		{"exit_status", "utf8", true}, {"error_code", "utf8", true}, {"error_stage", "utf8", true},
		{"error_message", "utf8", true},
		{"turns", "int32", false}, {"input_tokens", "int64", false}, {"output_tokens", "int64", false},
		{"tool_calls", "int32", false}, {"started_at", ts, false}, {"duration_ms", "float64", false},
		{"resolve_ms", "float64", true}, {"verify_ms", "float64", true}, {"stage_ms", "float64", true},
		{"contain_ms", "float64", true}, {"launch_ms", "float64", true}, {"loop_ms", "float64", true},
		{"report_ms", "float64", true},
		{"capsule_name", "utf8", false}, {"capsule_version", "utf8", false}, {"model", "utf8", true},
		{"session_dir", "utf8", false},
		{"inference_retries", "int32", false}, {"replay_divergences", "int32", false},
		{"replay_first_divergent_turn", "int32", true}, {"containment_achieved", "utf8", false},
		{"attempt", "int32", false}, {"reopens", "int32", false},
		{"workspace_diff_bytes", "int64", true},
		{"provider_input_tokens", "int64", true}, {"provider_output_tokens", "int64", true},
		{"murmur_overall", "utf8", true}, {"murmur_difference", "utf8", true},
		{"cache_hits", "int32", false}, {"cache_misses", "int32", false},
		{"variant", "utf8", true}, {"cost_usd", "float64", true}, {"cost_estimated", "bool", false},
	}
	path := filepath.Join(t.TempDir(), "results.parquet")
	writeAll(t, path, 10, []ResultRow{{}})
	if diff := cmp.Diff(want, readParquet(t, path).Columns); diff != "" {
		t.Errorf("results.parquet columns (-want +got):\n%s", diff)
	}
}

func TestEventRowColumns(t *testing.T) {
	want := []column{
		{"run_id", "utf8", false}, {"case_id", "utf8", false}, {"epoch", "int32", false},
		{"session_id", "utf8", false}, {"seq", "int32", false},
		{"timestamp", "timestamp[ms, tz=UTC]", false}, {"event_type", "utf8", false},
		{"turn", "int32", true}, {"tool_name", "utf8", true}, {"event_json", "utf8", false},
		{"attempt", "int32", false}, {"variant", "utf8", true}, {"cost_usd", "float64", true},
	}
	path := filepath.Join(t.TempDir(), "events.parquet")
	writeAll(t, path, 10, []EventRow{{}})
	if diff := cmp.Diff(want, readParquet(t, path).Columns); diff != "" {
		t.Errorf("events.parquet columns (-want +got):\n%s", diff)
	}
}

// resultValues lists r's columns in contract order, as readParquet decodes them.
func resultValues(r ResultRow) []any {
	return []any{r.RunID, r.CaseID, r.Epoch, r.SessionID, r.Status,
		opt(r.ExitStatus), opt(r.ErrorCode), opt(r.ErrorStage), opt(r.ErrorMessage),
		r.Turns, r.InputTokens, r.OutputTokens, r.ToolCalls, ms(r.StartedAt), r.DurationMS,
		opt(r.ResolveMS), opt(r.VerifyMS), opt(r.StageMS), opt(r.ContainMS), opt(r.LaunchMS),
		opt(r.LoopMS), opt(r.ReportMS),
		r.CapsuleName, r.CapsuleVersion, opt(r.Model), r.SessionDir,
		r.InferenceRetries, r.ReplayDivergences, opt(r.ReplayFirstDivergentTurn), r.ContainmentAchieved, r.Attempt, r.Reopens,
		opt(r.WorkspaceDiffBytes), opt(r.ProviderInputTokens), opt(r.ProviderOutputTokens),
		opt(r.MurmurOverall), opt(r.MurmurDifference), r.CacheHits, r.CacheMisses, opt(r.Variant),
		opt(r.CostUSD), r.CostEstimated}
}

// eventValues lists e's columns in contract order, as readParquet decodes them.
func eventValues(e EventRow) []any {
	return []any{e.RunID, e.CaseID, e.Epoch, e.SessionID, e.Seq, ms(e.Timestamp), e.EventType,
		opt(e.Turn), opt(e.ToolName), e.EventJSON, e.Attempt, opt(e.Variant), opt(e.CostUSD)}
}

// sampleResults returns n varied results: every third has all nullable
// columns null, every third has them set to zero values, the rest realistic.
func sampleResults(n int) []ResultRow {
	start := time.Date(2025, 3, 1, 2, 30, 0, 123456789, time.FixedZone("CET", 3600))
	rows := make([]ResultRow, n)
	for i := range rows {
		r := ResultRow{
			RunID: "run-20250301", CaseID: fmt.Sprintf("case-%03d", i), Epoch: int32(i % 2),
			SessionID: fmt.Sprintf("s-%d", i), Status: StatusPassed,
			Turns: int32(i), InputTokens: int64(i) << 33, OutputTokens: int64(i) * 7, ToolCalls: int32(i % 5),
			StartedAt: start.Add(time.Duration(i) * 1500 * time.Microsecond), DurationMS: float64(i) + 0.25,
			CapsuleName: "weather", CapsuleVersion: "1.2.0", SessionDir: fmt.Sprintf("cases/case-%03d/0", i),
			Reopens: int32(i % 3),
		}
		switch i % 3 {
		case 0: // nulls everywhere: a skipped case
			r.Status, r.SessionID, r.SessionDir = StatusSkipped, "", ""
		case 1: // zero values that must not read back as null
			r.Status = StatusFailed
			r.ExitStatus, r.ErrorCode, r.ErrorStage, r.ErrorMessage = ptr(""), ptr(""), ptr(""), ptr("")
			r.ResolveMS, r.VerifyMS, r.StageMS, r.ContainMS = ptr(0.0), ptr(0.0), ptr(0.0), ptr(0.0)
			r.LaunchMS, r.LoopMS, r.ReportMS, r.Model = ptr(0.0), ptr(0.0), ptr(0.0), ptr("")
			r.WorkspaceDiffBytes = ptr(int64(0))
			r.ProviderInputTokens, r.ProviderOutputTokens = ptr(int64(0)), ptr(int64(0))
			r.MurmurOverall, r.MurmurDifference = ptr(""), ptr("")
			r.CostUSD = ptr(0.0)
		case 2:
			r.Status, r.ExitStatus = StatusError, ptr(ExitMaxTurnsReached)
			r.ErrorCode, r.ErrorStage = ptr("E-RUN-007"), ptr("loop")
			r.ErrorMessage = ptr("agent loop failed: «modèle» 返回了无效的响应 🤖\nline two")
			r.ResolveMS, r.VerifyMS, r.StageMS, r.ContainMS = ptr(1.5), ptr(2.25), ptr(3.0), ptr(0.125)
			r.LaunchMS, r.LoopMS, r.ReportMS, r.Model = ptr(40.0), ptr(1234.5), ptr(7.0), ptr("claude-sonnet-4")
			r.CaseID = "ケース-" + r.CaseID
			r.WorkspaceDiffBytes = ptr(int64(1234))
			r.ProviderInputTokens, r.ProviderOutputTokens = ptr(int64(3050)), ptr(int64(412))
			r.MurmurDifference = ptr("model_turn_error")
			r.CacheHits, r.CacheMisses = 3, 1
			r.CostUSD, r.CostEstimated = ptr(0.0123456789), true
		}
		rows[i] = r
	}
	return rows
}

// sampleEvents returns n trace events spread over a few cases, including
// null turn and tool name, empty strings and a 1 MiB event_json.
func sampleEvents(n int) []EventRow {
	start := time.Date(2025, 3, 1, 2, 30, 0, 999999999, time.UTC)
	types := []string{"session_start", "model_request", "model_response", "tool_call", "tool_result", "session_end"}
	rows := make([]EventRow, n)
	for i := range rows {
		typ := types[i%len(types)]
		e := EventRow{
			RunID: "run-20250301", CaseID: fmt.Sprintf("case-%d", i/50), Epoch: 0,
			SessionID: fmt.Sprintf("s-%d", i/50), Seq: int32(i % 50),
			Timestamp: start.Add(time.Duration(i) * time.Millisecond), EventType: typ,
			EventJSON: fmt.Sprintf(`{"type":%q,"seq":%d}`, typ, i%50),
		}
		if typ != "session_start" && typ != "session_end" {
			e.Turn = ptr(int32(i % 50 / 6))
		}
		if typ == "tool_call" || typ == "tool_result" {
			e.ToolName = ptr("fetch_weather")
		}
		switch i {
		case 1:
			e.Turn, e.ToolName, e.EventType = ptr(int32(0)), ptr(""), ""
		case 2:
			e.EventJSON = `{"type":"model_response","text":"` + strings.Repeat("héllo wörld ✓ ", 1<<16) + `"}`
		case 3:
			e.EventJSON = `{"text":"日本語のテキスト","emoji":"🎉"}`
			e.CostUSD = ptr(2.13)
		}
		rows[i] = e
	}
	return rows
}

// layouts are the ways a sink may lay rows out, for the round trips: in
// memory, and spilled to disk with pages small enough that every column
// has several per group and the spill files are reused group after group.
func layouts(perGroup int) map[string]Layout {
	return map[string]Layout{
		"memory":  {RowsPerGroup: perGroup},
		"spilled": {RowsPerGroup: perGroup, SpillPages: true, PageBytes: 256},
		"bounds":  {RowsPerGroup: perGroup, NoBounds: []string{"event_json", "error_message"}},
	}
}

// roundTrip writes rows through a Sink of every layout, perGroup rows a
// group, and reads them back with arrow-go: the groups are as wanted, every
// value comes back, and nothing but the file is left in the folder (a
// spilled layout's page files are unlinked).
func roundTrip[T any](t *testing.T, name string, rows []T, perGroup int, groups []int64, values func(T) []any) {
	for layout, l := range layouts(perGroup) {
		t.Run(layout, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, name)
			writeLayout(t, path, l, rows)
			if diff := cmp.Diff([]string{name}, dirNames(t, dir)); diff != "" {
				t.Errorf("after the run, dir (-want +got):\n%s", diff)
			}
			got := readParquet(t, path)
			if diff := cmp.Diff(groups, got.RowGroups); diff != "" {
				t.Errorf("rows per row group (-want +got):\n%s", diff)
			}
			if len(got.Rows) != len(rows) {
				t.Fatalf("read %d rows, want %d", len(got.Rows), len(rows))
			}
			for i, r := range rows {
				if diff := cmp.Diff(values(r), got.Rows[i]); diff != "" {
					t.Errorf("%s (-want +got):\n%s", describe(i, got.Rows[i]), diff)
				}
			}
		})
	}
}

func TestResultRowsRoundTrip(t *testing.T) {
	roundTrip(t, "results.parquet", sampleResults(47), 10, []int64{10, 10, 10, 10, 7}, resultValues)
}

func TestEventRowsRoundTrip(t *testing.T) {
	roundTrip(t, "events.parquet", sampleEvents(260), 64, []int64{64, 64, 64, 64, 4}, eventValues)
}
