package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference/apitest"
	"github.com/murmur-nexus/murmur-eval/inference/drivertest"
)

// The same dataset through murmur's OpenAI driver (inference/drivertest's
// fixture, installed as murmur-driver-openai) and through the built-in
// OpenAI provider (the same capsule without the artifact installed), on
// the same scripted answers: the same verdicts, HTTP errors and refused
// answers included (docs/providers.md).

const openAIDriverManifest = `name: murmur-driver-openai
version: 0.1.0
runtime: driver
requires_files: [murmur-driver-openai.wasm]
`

// openAIScript answers a Chat Completions request by its task (the first
// user message) and turn (the assistant messages so far): a JSON
// completion to the built-in provider, the same completion as
// server-sent events to the driver (it asks for a stream).
func openAIScript(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Stream   bool `json:"stream"`
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		if json.Unmarshal(body, &req) != nil || r.Header.Get("Authorization") != "Bearer sk-openai" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		task, turn := "", 0
		for _, m := range req.Messages {
			if s, ok := m.Content.(string); ok && m.Role == "user" && task == "" {
				task = s
			}
			if m.Role == "assistant" {
				turn++
			}
		}
		var answer string
		switch {
		case strings.HasPrefix(task, "Say hello") && turn == 0:
			answer = apitest.OpenAICompletion("stop", "Hello there.", 20, 3)
		case strings.HasPrefix(task, "Multiply") && turn == 0:
			answer = apitest.OpenAICompletion("tool_calls", "", 30, 9, apitest.OpenAIToolCall("call_1", "calc", `{"expression":"6*7"}`))
		case strings.HasPrefix(task, "Multiply"):
			answer = apitest.OpenAICompletion("stop", "The result is 42.", 40, 6)
		case strings.HasPrefix(task, "Guess"):
			answer = apitest.OpenAICompletion("stop", "It is 41.", 20, 4)
		case strings.HasPrefix(task, "Ramble"):
			answer = apitest.OpenAICompletion("length", "Once upon a", 20, 4)
		case strings.HasPrefix(task, "Filter"):
			answer = apitest.OpenAICompletion("content_filter", "", 20, 0)
		case strings.HasPrefix(task, "Refuse"):
			answer = strings.Replace(apitest.OpenAICompletion("stop", "", 20, 4), `"refusal":null`, `"refusal":"I can't."`, 1)
		case strings.HasPrefix(task, "Explain") && turn == 0:
			answer = apitest.OpenAICompletion("stop", "Let me check.", 30, 9, apitest.OpenAIToolCall("call_2", "calc", `{"expression":"1+1"}`))
		default:
			http.Error(w, apitest.OpenAIError("invalid_request_error", "", "unknown task "+task), http.StatusBadRequest)
			return
		}
		if req.Stream {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, sseOf(t, answer))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// sseOf is a one-choice completion as a stream: content, tool calls, the
// finish reason, [DONE].
func sseOf(t *testing.T, completion string) string {
	t.Helper()
	var c struct {
		Choices []struct {
			Message struct {
				Content   *string          `json:"content"`
				ToolCalls []map[string]any `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.Unmarshal([]byte(completion), &c); err != nil {
		t.Fatal(err)
	}
	ch := c.Choices[0]
	var b strings.Builder
	chunk := func(delta any, finish any) {
		d, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		b.WriteString("data: " + string(d) + "\n\n")
	}
	if ch.Message.Content != nil {
		chunk(map[string]any{"role": "assistant", "content": *ch.Message.Content}, nil)
	}
	for i, tc := range ch.Message.ToolCalls {
		tc["index"] = i
		chunk(map[string]any{"tool_calls": []any{tc}}, nil)
	}
	chunk(map[string]any{}, ch.FinishReason)
	return b.String() + "data: [DONE]\n\n"
}

// openAICapsule is the quickstart speaking OpenAI to srvURL through
// murmur-driver-openai, declared and installed when installed is set
// (murmur refuses a declared artifact that is not installed).
func openAICapsule(t *testing.T, srvURL string, installed bool) string {
	t.Helper()
	dir := quickstart(t)
	driverArtifact := ""
	if installed {
		packComponentTool(t, dir, "murmur-driver-openai", openAIDriverManifest, drivertest.OpenAIDriver(t))
		driverArtifact = `
  - name: murmur-driver-openai
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
  model: gpt-4o
  api_key: sk-openai
  driver:
    artifact: murmur-driver-openai
  max_turns: 4
capabilities:
  network:
    allow: ["`+srvURL+`"]
  limits:
    deadline_seconds: 20
`)
	writeFile(t, filepath.Join(dir, "openai-cases.jsonl"), `{"case_id": "hello", "task": "Say hello.", "expected": {"result_contains": "Hello"}}
{"case_id": "multiply", "task": "Multiply 6 by 7.", "expected": {"result_contains": "42"}}
{"case_id": "wrong", "task": "Guess 6 times 7.", "expected": {"result_contains": "42"}}
{"case_id": "ramble", "task": "Ramble on."}
{"case_id": "rejected", "task": "Something unknown."}
{"case_id": "filtered", "task": "Filter this."}
{"case_id": "refused", "task": "Refuse this.", "expected": {"result_contains": "can"}}
{"case_id": "unanswered", "task": "Explain 1+1.", "expected": {"result_contains": "check"}}
`)
	return dir
}

// TestDriverAndBuiltinVerdicts runs the dataset through the installed
// driver and through the built-in provider: the same status, exit status,
// turns, tool calls, murmur's token counts and result.txt per case, the 400 and content_filter
// included (murmur's driver ends them failed, result.txt its error
// response), the refusal dropped and tool calls under finish_reason stop
// left unanswered.
func TestDriverAndBuiltinVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	srv := openAIScript(t)
	rows := map[bool]map[string]map[string]any{}
	outs := map[bool]string{}
	for _, installed := range []bool{true, false} {
		dir := openAICapsule(t, srv.URL, installed)
		out := filepath.Join(reachableTempDir(t), "run")
		args := []string{dir, "--dataset", filepath.Join(dir, "openai-cases.jsonl"), "--out", out, "--workers", "2"}
		if !installed {
			args = append(args, "--driver", "builtin") // else the undeclared driver refuses the run (E-RUN-006)
		}
		r := runBinary(t, args...)
		if r.code != 0 && r.code != 1 {
			t.Fatalf("installed=%v: exit %d\nstderr:\n%s", installed, r.code, r.stderr)
		}
		if warned := strings.Contains(r.stderr, "E-RUN-006"); warned == installed {
			t.Errorf("installed=%v: E-RUN-006 warning %v\nstderr:\n%s", installed, warned, r.stderr)
		}
		rows[installed] = resultsByCase(t, out)
		outs[installed] = out
	}
	drv, builtin := rows[true], rows[false]
	want := map[string][2]string{"hello": {"passed", "ok"}, "multiply": {"passed", "ok"}, "wrong": {"failed", "ok"},
		"rejected": {"failed", "failed"}, "filtered": {"failed", "failed"}, "refused": {"failed", "ok"}, "unanswered": {"failed", "ok"}}
	for id, w := range want {
		if drv[id]["status"] != w[0] || drv[id]["exit_status"] != w[1] {
			t.Errorf("%s: driver %v/%v (%v %v), want %s/%s", id, drv[id]["status"], drv[id]["exit_status"], drv[id]["error_code"], drv[id]["error_message"], w[0], w[1])
		}
	}
	for _, id := range []string{"hello", "multiply", "wrong", "ramble", "rejected", "filtered", "refused", "unanswered"} {
		for _, col := range []string{"status", "exit_status", "error_code", "turns", "tool_calls", "model", "input_tokens", "output_tokens"} {
			if drv[id][col] != builtin[id][col] {
				t.Errorf("%s: %s through the driver %v, through the built-in provider %v", id, col, drv[id][col], builtin[id][col])
			}
		}
		viaDriver, err1 := os.ReadFile(filepath.Join(caseSession(t, outs[true], id), "out", "result.txt"))
		viaBuiltin, err2 := os.ReadFile(filepath.Join(caseSession(t, outs[false], id), "out", "result.txt"))
		if err1 != nil || err2 != nil || string(viaDriver) != string(viaBuiltin) {
			t.Errorf("%s: result.txt through the driver %q (%v), through the built-in provider %q (%v)", id, viaDriver, err1, viaBuiltin, err2)
		}
	}
	got, err := os.ReadFile(filepath.Join(caseSession(t, outs[false], "rejected"), "out", "result.txt"))
	if err != nil || !strings.HasPrefix(string(got), `error: {"error":"HTTP 400: {\"error\":{\"message\":\"unknown task`) {
		t.Errorf("rejected: built-in result.txt %q (%v)", got, err)
	}
}
