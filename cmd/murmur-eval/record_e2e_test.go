package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
	"github.com/murmur-nexus/murmur-eval/inference/replay"
)

// TestRecordThenReplayRowForRow runs the quickstart against a local server
// that answers as Anthropic's Messages API would (its answers taken from the
// quickstart's recordings), with --record; stops the server; replays the
// new recordings; and compares the two runs' results row for row. It skips
// until the run command has --record.
func TestRecordThenReplayRowForRow(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	if help := runBinary(t, "--help"); !strings.Contains(help.stderr, "--record") {
		t.Skip("--record is not wired into the run command yet")
	}
	dir := quickstart(t)
	t.Parallel()
	srv := anthropicFromRecordings(t, dir, nil)
	useEndpoint(t, dir, srv.URL)
	cases := filepath.Join(dir, "cases.jsonl")
	rec := filepath.Join(t.TempDir(), "recordings")
	live := filepath.Join(reachableTempDir(t), "live")
	r := runBinary(t, dir, "--dataset", cases, "--record", rec, "--out", live, "--workers", "6", "--max-connections", "2", "--driver", "builtin")
	if r.code != 0 {
		t.Fatalf("recording run exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	srv.Close()
	replayed := filepath.Join(reachableTempDir(t), "replayed")
	if r := runBinary(t, dir, "--dataset", cases, "--replay", rec, "--out", replayed); r.code != 0 {
		t.Fatalf("replay run exit %d\nstderr:\n%s", r.code, r.stderr)
	}

	var expected map[string]string
	data, _ := os.ReadFile(filepath.Join(dir, "expected-statuses.json"))
	if err := json.Unmarshal(data, &expected); err != nil {
		t.Fatal(err)
	}
	a := resultsByCase(t, live)
	b := resultsByCase(t, replayed)
	if len(a) != len(expected) || len(b) != len(expected) {
		t.Fatalf("%d live rows, %d replayed, want %d", len(a), len(b), len(expected))
	}
	for id, want := range expected {
		if a[id]["status"] != want {
			t.Errorf("%s: live status %v, want %s (%v)", id, a[id]["status"], want, a[id]["error_message"])
		}
		for _, col := range []string{"status", "exit_status", "error_code", "turns", "input_tokens", "output_tokens", "tool_calls", "model"} {
			if a[id][col] != b[id][col] {
				t.Errorf("%s: %s live %v, replayed %v", id, col, a[id][col], b[id][col])
			}
		}
	}
	count := func(run, typ string) int {
		n := 0
		for _, e := range readParquet(t, filepath.Join(run, "events.parquet")).Rows {
			if e["event_type"] == typ {
				n++
			}
		}
		return n
	}
	if n := count(live, "inference_retry"); n != 1 {
		t.Errorf("live run: %d inference_retry events, want the one 429", n)
	}
	if n := count(replayed, "replay_divergence"); n != 0 {
		t.Errorf("replayed run: %d replay_divergence events, want none", n)
	}
}

// anthropicFromRecordings serves the capsule's recordings/ as Anthropic
// Messages answers: the case is found by its task text, the turn by the
// assistant messages so far. direct-answer's first request gets a 429.
// fail, when set, may answer a request instead.
func anthropicFromRecordings(t *testing.T, dir string, fail func(caseID string, turn int) *apitest.Reply) *apitest.Server {
	t.Helper()
	byTask := map[string][]replay.Turn{}
	var taskOf = map[string]string{}
	for _, l := range readLines(t, filepath.Join(dir, "cases.jsonl")) {
		var c struct {
			ID       string `json:"case_id"`
			Task     string `json:"task"`
			TaskPath string `json:"task_path"`
		}
		if strings.TrimSpace(l) == "" || json.Unmarshal([]byte(l), &c) != nil {
			continue
		}
		task := c.Task
		if c.TaskPath != "" {
			b, err := os.ReadFile(filepath.Join(dir, c.TaskPath))
			if err != nil {
				t.Fatal(err)
			}
			task = string(b)
		}
		path := recordingPath(filepath.Join(dir, "recordings"), c.ID)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		turns, err := replay.Parse(path, data)
		if err != nil {
			t.Fatal(err)
		}
		byTask[strings.TrimSpace(task)] = turns
		taskOf[strings.TrimSpace(task)] = c.ID
	}
	var once sync.Once
	return apitest.New(t, func(r apitest.Request) apitest.Reply {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"messages"`
		}
		if json.Unmarshal(r.Body, &req) != nil || len(req.Messages) == 0 || len(req.Messages[0].Content) == 0 {
			return apitest.Reply{Status: 400, Body: apitest.AnthropicError("invalid_request_error", "bad body")}
		}
		task := strings.TrimSpace(req.Messages[0].Content[0].Text)
		turn := 0
		for _, m := range req.Messages {
			if m.Role == "assistant" {
				turn++
			}
		}
		if fail != nil {
			if reply := fail(taskOf[task], turn); reply != nil {
				return *reply
			}
		}
		if taskOf[task] == "direct-answer" {
			throttled := false
			once.Do(func() { throttled = true })
			if throttled {
				return apitest.Reply{Status: 429, Header: map[string]string{"retry-after-ms": "20"}, Body: apitest.AnthropicError("rate_limit_error", "slow down")}
			}
		}
		turns := byTask[task]
		if turn >= len(turns) {
			return apitest.Reply{Status: 400, Body: apitest.AnthropicError("invalid_request_error", "no such turn")}
		}
		return apitest.Reply{Body: asAnthropic(turns[turn].Response)}
	})
}

// asAnthropic writes a canonical response as a Messages response.
func asAnthropic(r *inference.Response) string {
	stop := map[string]string{"end_turn": "end_turn", "tool_call": "tool_use", "max_tokens": "max_tokens"}[r.StopReason]
	if stop == "" {
		stop = "refusal"
	}
	var blocks []string
	for _, b := range r.Blocks {
		switch b.Type {
		case "text":
			blocks = append(blocks, apitest.AnthropicText(b.Text))
		case "tool_call":
			blocks = append(blocks, apitest.AnthropicToolUse(b.ID, b.Name, string(b.Input)))
		}
	}
	in, out := 100, 10
	if r.Usage != nil {
		in, out = int(r.Usage.InputTokens), int(r.Usage.OutputTokens)
	}
	return apitest.AnthropicMessage(stop, in, out, blocks...)
}
