package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
	"github.com/murmur-nexus/murmur-eval/inference/record"
	"github.com/murmur-nexus/murmur-eval/inference/replay"
)

// echoServer speaks Chat Completions: a tool call first, then an answer
// naming the task, with usage only on tasks that are not "quiet" (so token
// estimates are replayed too). A task with "stop" answers without tools.
func echoServer(t *testing.T) *apitest.Server {
	return apitest.New(t, func(r apitest.Request) apitest.Reply {
		var req struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(r.Body, &req)
		var task string
		_ = json.Unmarshal(req.Messages[1].Content, &task)
		if strings.Contains(task, "quiet") {
			return apitest.Reply{Body: `{"choices":[{"message":{"role":"assistant","content":"quietly ` + task + `"},"finish_reason":"stop"}]}`}
		}
		if len(req.Messages) == 2 && !strings.Contains(task, "stop") {
			return apitest.Reply{Body: apitest.OpenAICompletion("tool_calls", "", 100, 10, apitest.OpenAIToolCall("call_1", "calc", `{"task":"`+task+`"}`))}
		}
		return apitest.Reply{Body: apitest.OpenAICompletion("stop", "answer to "+task, 120, 5)}
	})
}

func openAIConfig(srv *apitest.Server) inference.Config {
	return inference.Config{Transport: "http", Endpoint: srv.URL, Model: "gpt-4o", MaxTokens: 1024, DriverArtifact: "murmur-driver-openai"}
}

// TestRecordedRunReplaysRowForRow records cases against a server, stops
// it, replays, and compares each case's outcome, totals and trace.
func TestRecordedRunReplaysRowForRow(t *testing.T) {
	srv := echoServer(t)
	dir := filepath.Join(t.TempDir(), "recordings")
	rec, err := record.New(dir, quick(httpapi.Options{MaxConnections: 2}))
	if err != nil {
		t.Fatal(err)
	}
	tasks := []string{"add 1 2", "stop now", "quiet please", "sub/3 1"}
	type row struct {
		outcome Outcome
		events  []map[string]any
	}
	run := func(src inference.Source) []row {
		var rows []row
		for i, task := range tasks {
			c := httpCase(t, src, fmt.Sprintf("case/%d", i), task, openAIConfig(srv))
			if err := (Stage{}).Run(context.Background(), c); err != nil {
				t.Fatalf("%s: %v", task, err)
			}
			rows = append(rows, row{*outcomeOf(c), events(c)})
		}
		return rows
	}
	recorded := run(rec)
	srv.Close()
	rep, err := replay.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	replayed := run(rep)
	if diff := cmp.Diff(recorded, replayed, cmp.AllowUnexported(row{})); diff != "" {
		t.Errorf("replay differs from the recorded run (-recorded +replayed):\n%s", diff)
	}
	if _, ok := recorded[2].events[1]["provider_input_tokens"]; ok || recorded[0].events[1]["provider_input_tokens"] == nil ||
		recorded[2].events[1]["tokens_source"] != "cl100k_base" || recorded[0].events[1]["tokens_source"] != "cl100k_base" {
		t.Errorf("token sources: %v / %v", recorded[2].events[1], recorded[0].events[1])
	}
}

// TestReplayedRunThatDivergesSaysSo: the task changed since the recording;
// the replay serves the recorded turns, writes replay_divergence events and
// counts them.
func TestReplayedRunThatDivergesSaysSo(t *testing.T) {
	srv := echoServer(t)
	dir := t.TempDir()
	rec, _ := record.New(dir, quick(httpapi.Options{}))
	c := httpCase(t, rec, "d", "add 1 2", openAIConfig(srv))
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	rep, _ := replay.Open(dir)
	c2 := httpCase(t, rep, "d", "add 1 3", openAIConfig(srv))
	if err := (Stage{}).Run(context.Background(), c2); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"session_start", "replay_divergence", "inference", "tool_call", "replay_divergence", "inference", "session_end"}, eventTypes(c2)); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
	counts := sessionOf(c2).Trace.EvalCounts()
	if counts.Divergences != 2 || counts.FirstDivergedTurn == nil || *counts.FirstDivergedTurn != 0 {
		t.Errorf("EvalCounts = %+v, want 2 divergences from turn 0", counts)
	}
	if *outcomeOf(c2) != *outcomeOf(c) {
		t.Errorf("replayed outcome %+v, recorded %+v", outcomeOf(c2), outcomeOf(c))
	}
}
