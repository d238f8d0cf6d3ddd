package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference/apitest"
)

// The built-in Anthropic provider through the binary, on a server that
// answers as Anthropic does (server-sent events to stream: true): the
// verdicts murmur's murmur-driver-anthropic gave on the same answers when
// installed in this capsule by hand (docs/providers.md): text, a tool
// call, a wrong answer and max_tokens are scored; a refusal, a 400 and a
// body that does not parse end the session failed with the driver's
// result.txt, scored, not harness errors.

// anthropicScript answers by the task (the first user message's text) and
// turn (the assistant messages so far).
func anthropicScript(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Stream   bool `json:"stream"`
			Messages []struct {
				Role    string `json:"role"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"messages"`
		}
		if json.Unmarshal(body, &req) != nil || r.Header.Get("x-api-key") != "sk-ant" || r.URL.Path != "/v1/messages" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		task, turn := "", 0
		for _, m := range req.Messages {
			if m.Role == "user" && task == "" && len(m.Content) > 0 {
				task = m.Content[0].Text
			}
			if m.Role == "assistant" {
				turn++
			}
		}
		msg, txt := apitest.AnthropicMessage, apitest.AnthropicText
		var answer string
		switch {
		case strings.HasPrefix(task, "Say hello"):
			answer = msg("end_turn", 20, 3, txt("Hello there."))
		case strings.HasPrefix(task, "Multiply") && turn == 0:
			answer = msg("tool_use", 30, 9, txt("Let me compute."), apitest.AnthropicToolUse("toolu_1", "calc", `{"expression":"6*7"}`))
		case strings.HasPrefix(task, "Multiply"):
			answer = msg("end_turn", 40, 6, txt("The result is 42."))
		case strings.HasPrefix(task, "Guess"):
			answer = msg("end_turn", 20, 4, txt("It is 41."))
		case strings.HasPrefix(task, "Ramble"):
			answer = msg("max_tokens", 20, 4, txt("Once upon a"))
		case strings.HasPrefix(task, "Refuse"):
			answer = msg("refusal", 20, 0)
		case strings.HasPrefix(task, "Garble"):
			_, _ = io.WriteString(w, `{"type":"message","content":[{"type":"te`)
			return
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, apitest.AnthropicError("invalid_request_error", "unknown task "+task))
			return
		}
		if req.Stream {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, anthropicStream(t, answer))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// anthropicStream is a Messages answer as Anthropic streams it.
func anthropicStream(t *testing.T, body string) string {
	t.Helper()
	var m struct {
		Content    []map[string]any `json:"content"`
		StopReason string           `json:"stop_reason"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	ev := func(name string, data any) {
		d, _ := json.Marshal(data)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", name, d)
	}
	ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{"type": "message", "role": "assistant", "content": []any{},
		"usage": map[string]any{"input_tokens": 20, "output_tokens": 1}}})
	for i, c := range m.Content {
		switch c["type"] {
		case "text":
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": c["text"]}})
		case "tool_use":
			in, _ := json.Marshal(c["input"])
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": c["id"], "name": c["name"], "input": map[string]any{}}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		}
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": m.StopReason}, "usage": map[string]any{"output_tokens": 5}})
	ev("message_stop", map[string]any{"type": "message_stop"})
	return b.String()
}

// anthropicCapsule is the quickstart speaking Anthropic to srvURL through
// murmur-driver-anthropic: the built-in provider, or driver (a component)
// installed as that artifact when it is not nil.
func anthropicCapsule(t *testing.T, srvURL string, driver []byte) string {
	t.Helper()
	dir := quickstart(t)
	driverArtifact := ""
	if driver != nil {
		packComponentTool(t, dir, "murmur-driver-anthropic", "name: murmur-driver-anthropic\nversion: 0.1.0\nruntime: driver\nrequires_files: [murmur-driver-anthropic.wasm]\n", driver)
		driverArtifact = `
  - name: murmur-driver-anthropic
    runtime: driver
    version: 0.1.0`
	}
	writeFile(t, filepath.Join(dir, "murmur.yaml"), `name: quickstart
version: 0.1.0
artifacts:
  - name: calc
    runtime: tool
    version: 0.1.0`+driverArtifact+`
inference:
  transport: http
  endpoint: `+srvURL+`
  model: claude-sonnet-4-5
  api_key: sk-ant
  driver:
    artifact: murmur-driver-anthropic
  max_turns: 4
capabilities:
  network:
    allow: ["`+srvURL+`"]
  limits:
    deadline_seconds: 20
`)
	writeFile(t, filepath.Join(dir, "anthropic-cases.jsonl"), `{"case_id": "hello", "task": "Say hello.", "expected": {"result_contains": "Hello"}}
{"case_id": "multiply", "task": "Multiply 6 by 7.", "expected": {"result_contains": "42"}}
{"case_id": "wrong", "task": "Guess 6 times 7.", "expected": {"result_contains": "42"}}
{"case_id": "ramble", "task": "Ramble on."}
{"case_id": "refusal", "task": "Refuse this."}
{"case_id": "garbled", "task": "Garble it."}
{"case_id": "rejected", "task": "Something unknown."}
`)
	return dir
}

// anthropicVerdicts is what murmur's murmur-driver-anthropic gave, installed
// in anthropicCapsule by hand: status, exit status, turns, tool calls and
// the start of result.txt ("" when not checked).
var anthropicVerdicts = map[string]struct {
	status, exit string
	turns, calls int32
	result       string
}{
	"hello":    {"passed", "ok", 1, 0, "Hello there."},
	"multiply": {"passed", "ok", 2, 1, "The result is 42."},
	"wrong":    {"failed", "ok", 1, 0, "It is 41."},
	"ramble":   {"passed", "ok", 1, 0, "Once upon a"},
	"refusal":  {"failed", "failed", 0, 0, `error: {"error":"driver: unsupported Anthropic stop_reason 'refusal'","stop_reason":"error"}`},
	"garbled":  {"failed", "failed", 0, 0, `error: {"error":"driver: failed to parse Anthropic response JSON: `},
	"rejected": {"failed", "failed", 0, 0, `error: {"error":"HTTP 400: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"unknown task Something unknown.\"}`},
}

func TestAnthropicBuiltinVerdictsAsMurmurDriver(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	checkAnthropicVerdicts(t, nil)
}

// checkAnthropicVerdicts runs the dataset and compares every case with
// anthropicVerdicts.
func checkAnthropicVerdicts(t *testing.T, driver []byte) {
	t.Helper()
	srv := anthropicScript(t)
	dir := anthropicCapsule(t, srv.URL, driver)
	out := filepath.Join(reachableTempDir(t), "run")
	args := []string{dir, "--dataset", filepath.Join(dir, "anthropic-cases.jsonl"), "--out", out, "--workers", "2"}
	if driver == nil {
		args = append(args, "--driver", "builtin") // else the undeclared driver refuses the run (E-RUN-006)
	}
	r := runBinary(t, args...)
	if r.code != 0 && r.code != 1 {
		t.Fatalf("exit %d, want 0 or 1 (scored failures, no harness error)\nstderr:\n%s", r.code, r.stderr)
	}
	if warned := strings.Contains(r.stderr, "E-RUN-006"); warned != (driver == nil) {
		t.Errorf("driver installed %v: E-RUN-006 warning %v\nstderr:\n%s", driver != nil, warned, r.stderr)
	}
	rows := resultsByCase(t, out)
	for id, want := range anthropicVerdicts {
		row := rows[id]
		if row["status"] != want.status || row["exit_status"] != want.exit || row["turns"] != want.turns || row["tool_calls"] != want.calls || row["model"] != "claude-sonnet-4-5" {
			t.Errorf("%s: %v/%v turns %v calls %v model %v (%v %v), want %s/%s turns %d calls %d", id, row["status"], row["exit_status"], row["turns"], row["tool_calls"], row["model"],
				row["error_code"], row["error_message"], want.status, want.exit, want.turns, want.calls)
		}
		got, err := os.ReadFile(filepath.Join(caseSession(t, out, id), "out", "result.txt"))
		if err != nil || !strings.HasPrefix(string(got), want.result) {
			t.Errorf("%s: result.txt %q (%v), want it to start %q", id, got, err, want.result)
		}
	}
}
