package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/murmur-nexus/murmur-eval/sandbox/component/componenttest"
)

// The driver tests: a capsule whose inference driver artifact is
// installed runs each model turn through it (inference/driver), as murmur
// does. The driver is inference/driver/testdata/relay.wat: it POSTs its
// input to MURMUR_INFERENCE_ENDPOINT with x-api-key and returns the body,
// passed for HTTP 200 and error otherwise, so a local server scripts the
// canonical responses. The same component is packed as two tools: fetch,
// whose own allow list the ceiling drops (every request denied), and
// fetch-ok, which inherits the capsule's list.

const relayDriverManifest = `name: relay-driver
version: 0.1.0
runtime: driver
requires_files: [relay-driver.wasm]
`

func relayTool(name string) string {
	return "name: " + name + `
version: 0.1.0
runtime: tool
description: POSTs its input to the inference endpoint.
requires_files: [` + name + `.wasm]
`
}

// driverCapsule is the quickstart with the relay driver and the two fetch
// tools installed, its endpoint (and the capsule's allow list) srvURL.
func driverCapsule(t *testing.T, srvURL string) string {
	t.Helper()
	dir := quickstart(t)
	relay := componenttest.Fixture(t, "relay")
	packComponentTool(t, dir, "relay-driver", relayDriverManifest, relay)
	packComponentTool(t, dir, "fetch", relayTool("fetch"), relay)
	packComponentTool(t, dir, "fetch-ok", relayTool("fetch-ok"), relay)
	writeFile(t, filepath.Join(dir, "murmur.yaml"), `name: quickstart
version: 0.1.0
artifacts:
  - name: calc
    runtime: tool
    version: 0.1.0
  - name: fetch
    runtime: tool
    version: 0.1.0
    capabilities:
      network:
        allow: ["https://elsewhere.example"]
  - name: fetch-ok
    runtime: tool
    version: 0.1.0
  - name: relay-driver
    runtime: driver
    version: 0.1.0
inference:
  transport: http
  endpoint: `+srvURL+`
  model: relay-model
  api_key: sk-driver
  driver:
    artifact: relay-driver
  max_turns: 4
capabilities:
  network:
    allow: ["`+srvURL+`"]
  limits:
    deadline_seconds: 20
`)
	writeFile(t, filepath.Join(dir, "driver-cases.jsonl"), `{"case_id": "direct", "task": "say hi"}
{"case_id": "tools", "task": "fetch twice"}
{"case_id": "refused", "task": "fail please"}
`)
	return dir
}

// driverServer scripts the model by task text and turn (the assistant
// messages so far). A request without messages is a fetch tool's. The
// first driver request of case direct gets a 429 with Retry-After: 0. A
// driver request without the API key, or a tool request with it, is a 400
// the test notices as a failed case.
func driverServer(t *testing.T, driverRequests *atomic.Int32) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	seen := map[string]int{}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(body, &req)
		key := r.Header.Get("x-api-key")
		if len(req.Messages) == 0 {
			if key != "" {
				http.Error(w, "a tool got the API key", http.StatusBadRequest)
				return
			}
			_, _ = io.WriteString(w, "fetched")
			return
		}
		driverRequests.Add(1)
		if key != "sk-driver" {
			http.Error(w, "no API key", http.StatusBadRequest)
			return
		}
		task, turn := req.Messages[0].Content[0].Text, 0
		for _, m := range req.Messages {
			if m.Role == "assistant" {
				turn++
			}
		}
		mu.Lock()
		seen[task]++
		n := seen[task]
		mu.Unlock()
		switch {
		case task == "say hi" && n == 1:
			w.Header().Set("Retry-After", "0")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		case task == "say hi":
			_, _ = io.WriteString(w, `{"content":[{"text":"hi","type":"text"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2}}`)
		case task == "fetch twice" && turn == 0:
			_, _ = io.WriteString(w, `{"content":[{"id":"c1","input":{"x":1},"name":"fetch","type":"tool_call"},{"id":"c2","input":{"y":2},"name":"fetch-ok","type":"tool_call"}],"stop_reason":"tool_call"}`)
		case task == "fetch twice":
			_, _ = io.WriteString(w, `{"content":[{"text":"done","type":"text"}],"stop_reason":"end_turn"}`)
		default:
			http.Error(w, `{"error":"model refused","stop_reason":"error"}`, http.StatusBadRequest)
		}
	}))
}

// TestDriverComponentRunsEveryTurn: a dataset through the capsule's
// installed driver component against a local server, recorded, then
// replayed: the same rows, and no request reaches the driver's endpoint
// (the fetch-ok tool still reaches the server, as tools do in a replay). The 429 is retried by the
// harness and counted; a driver status error ends its case failed (not a
// harness error) with murmur's result.txt; the tool whose allow list does
// not cover the endpoint is denied and traced while its case passes.
func TestDriverComponentRunsEveryTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	var driverRequests atomic.Int32
	srv := driverServer(t, &driverRequests)
	defer srv.Close()
	dir := driverCapsule(t, srv.URL)
	cases := filepath.Join(dir, "driver-cases.jsonl")
	rec := filepath.Join(t.TempDir(), "recordings")
	live := filepath.Join(reachableTempDir(t), "live")
	r := runBinary(t, dir, "--dataset", cases, "--record", rec, "--out", live, "--workers", "2")
	if r.code != 0 && r.code != 1 {
		t.Fatalf("live run exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "E-RUN-006") {
		t.Errorf("the installed driver was warned about as not installed:\n%s", r.stderr)
	}
	if n := driverRequests.Swap(0); n != 5 {
		t.Errorf("live run: %d driver requests, want 5 (direct twice: its 429 retried; tools twice; refused once)", n)
	}
	replayed := filepath.Join(reachableTempDir(t), "replayed")
	if r := runBinary(t, dir, "--dataset", cases, "--replay", rec, "--out", replayed); r.code != 0 && r.code != 1 {
		t.Fatalf("replay run exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if n := driverRequests.Load(); n != 0 {
		t.Errorf("replay run: %d driver requests, want none", n)
	}
	a := resultsByCase(t, live)
	b := resultsByCase(t, replayed)
	want := map[string]struct{ status, exit string }{
		"direct":  {"passed", "ok"},
		"tools":   {"passed", "ok"},
		"refused": {"failed", "failed"},
	}
	for id, w := range want {
		if a[id]["status"] != w.status || a[id]["exit_status"] != w.exit {
			t.Errorf("%s: live %v/%v (%v %v), want %s/%s", id, a[id]["status"], a[id]["exit_status"], a[id]["error_code"], a[id]["error_message"], w.status, w.exit)
		}
		for _, col := range []string{"status", "exit_status", "error_code", "turns", "input_tokens", "output_tokens", "tool_calls", "model"} {
			if a[id][col] != b[id][col] {
				t.Errorf("%s: %s live %v, replayed %v", id, col, a[id][col], b[id][col])
			}
		}
	}
	refused := `error: {"error":"model refused","stop_reason":"error"}` + "\n"
	for _, run := range []string{live, replayed} {
		if got := readFile(t, filepath.Join(caseSession(t, run, "refused"), "out", "result.txt")); got != refused {
			t.Errorf("%s: refused's result.txt = %q, want %q", filepath.Base(run), got, refused)
		}
	}
	if a["direct"]["inference_retries"] != int32(1) || b["direct"]["inference_retries"] != int32(0) {
		t.Errorf("direct: retries live %v, replayed %v; want the one 429 live, none replayed", a["direct"]["inference_retries"], b["direct"]["inference_retries"])
	}
	calls := componentCalls(t, caseSession(t, live, "tools"))
	if len(calls) != 2 || calls[0]["status"] != "error" || calls[1]["status"] != "ok" {
		t.Errorf("tools: tool calls %v, want fetch denied (error) and fetch-ok ok", calls)
	}
	var denied []map[string]any
	for _, line := range readLines(t, filepath.Join(caseSession(t, live, "tools"), "trace.jsonl")) {
		var ev map[string]any
		_ = json.Unmarshal([]byte(line), &ev)
		if ev["event_type"] == "network_denied" {
			denied = append(denied, ev)
		}
	}
	if len(denied) != 1 || denied[0]["artifact"] != "fetch" || !strings.HasPrefix(srv.URL, denied[0]["target"].(string)) {
		t.Errorf("tools: network_denied events %v, want one for fetch to %s", denied, srv.URL)
	}
	if _, err := os.Stat(filepath.Join(rec, "refused.jsonl")); err != nil {
		t.Errorf("the failed driver turn was not recorded: %v", err)
	}
}

// TestUnknownDriverNotInstalledIsRefused: a driver that is not installed
// is murmur's E-RUN-006, refused before any case starts (exit 2, no row,
// no request); so it is under --driver builtin when murmur-eval does not
// speak the driver's API either (every case would end in E-RUN-006);
// --run-anyway runs it, every case an E-RUN-006 error.
func TestUnknownDriverNotInstalledIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := quickstart(t)
	editManifest(t, dir, "artifact: murmur-driver-anthropic", "artifact: house-driver")
	for _, flags := range [][]string{nil, {"--driver", "builtin"}} {
		out := filepath.Join(reachableTempDir(t), "run")
		r := newFixture(t, dir).live().runInto(out, append([]string{"--filter", "calc-m*"}, flags...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "\nerror[E-RUN-006]: murmur.yaml: inference driver 'house-driver' is not installed") {
			t.Fatalf("%v: exit %d, want %d with E-RUN-006 before the cases\nstderr:\n%s", flags, r.code, exitUsage, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(out, "results.parquet")); err == nil {
			t.Errorf("%v: a refused run wrote results.parquet", flags)
		}
	}
	out := filepath.Join(reachableTempDir(t), "run")
	r := newFixture(t, dir).live().runInto(out, "--filter", "calc-m*", "--run-anyway")
	if r.code == 0 {
		t.Fatalf("--run-anyway: exit 0, want the cases refused\nstderr:\n%s", r.stderr)
	}
	if n := strings.Count(r.stderr, "murmur-eval: warning[E-RUN-006]"); n != 1 {
		t.Errorf("%d E-RUN-006 warnings, want one before the cases\nstderr:\n%s", n, r.stderr)
	}
	rows := resultsByCase(t, out)
	if len(rows) != 1 {
		t.Errorf("%d rows, want calc-multiply's", len(rows))
	}
	for _, id := range []string{"calc-multiply"} {
		if rows[id]["status"] != "error" || rows[id]["error_code"] != "E-RUN-006" {
			t.Errorf("%s: %v %v (%v), want error E-RUN-006", id, rows[id]["status"], rows[id]["error_code"], rows[id]["error_message"])
		}
	}
}
