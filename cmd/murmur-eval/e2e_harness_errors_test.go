package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
)

// Harness failures through the real binary (issue 39, finding 2): a wrong
// API key is an error row with E-EVL-014, never a failed case, through the
// installed driver component and the built-in provider alike; JUnit shows
// it as an <error>; report does not call a case flaky for that night. And
// the provider's usage fills provider_*_tokens when the installed driver
// answers (finding 9).

// keyServer answers every Chat Completions request "Hello there." with
// usage 17 in, 4 out (a stream whose last chunk carries the usage, as
// OpenAI sends it with stream_options.include_usage, to the driver; JSON
// to the built-in provider), or 401 while refuse is set.
func keyServer(t *testing.T, refuse *atomic.Bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Stream bool `json:"stream"`
		}
		_ = json.Unmarshal(body, &req)
		if refuse.Load() {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, apitest.OpenAIError("invalid_request_error", "invalid_api_key", "Incorrect API key provided: sk-wrong"))
			return
		}
		answer := apitest.OpenAICompletion("stop", "Hello there.", 17, 4)
		if req.Stream {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, strings.TrimSuffix(sseOf(t, answer), "data: [DONE]\n\n")+
				`data: {"choices":[],"usage":{"prompt_tokens":17,"completion_tokens":4,"total_tokens":21}}`+"\n\ndata: [DONE]\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// helloCapsule is openAICapsule, its driver installed, with four cases
// that pass when the model says hello.
func helloCapsule(t *testing.T, srvURL string) (dir, dataset string) {
	t.Helper()
	dir = openAICapsule(t, srvURL, true)
	dataset = filepath.Join(dir, "hello-cases.jsonl")
	writeFile(t, dataset, `{"case_id": "h1", "task": "Say hello.", "expected": {"result_contains": "Hello"}}
{"case_id": "h2", "task": "Say hello again.", "expected": {"result_contains": "Hello"}}
{"case_id": "h3", "task": "Say hello once more.", "expected": {"result_contains": "Hello"}}
{"case_id": "h4", "task": "Say hello at last.", "expected": {"result_contains": "Hello"}}
`)
	return dir, dataset
}

// TestWrongAPIKeyIsAHarnessError: every request answered 401, one case at
// a time. Through the installed driver and through the built-in provider
// (--driver builtin),
// the first two cases are error rows with E-EVL-014 (the credentials
// refused, the driver's text quoted), the third request declares the
// endpoint unreachable (E-EVL-018, exit 3) and no case is failed;
// junit.xml has <error type="E-EVL-014"> entries and no <failure>.
func TestWrongAPIKeyIsAHarnessError(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	var refuse atomic.Bool
	refuse.Store(true)
	srv := keyServer(t, &refuse)
	dir, dataset := helloCapsule(t, srv.URL)
	for _, installed := range []bool{true, false} {
		out := filepath.Join(reachableTempDir(t), "run")
		driver := map[bool]string{true: "installed", false: "builtin"}[installed]
		r := runBinary(t, dir, "--dataset", dataset, "--out", out, "--workers", "1", "--driver", driver)
		if r.code != 3 || !hasCode(r.stderr, errcode.EndpointUnreachable) {
			t.Errorf("installed=%v: exit %d, want 3 with %s\nstderr:\n%s", installed, r.code, errcode.EndpointUnreachable, r.stderr)
		}
		rows := resultsByCase(t, out)
		auth := 0
		for id, row := range rows {
			if row["status"] == "failed" || row["exit_status"] == "failed" {
				t.Errorf("installed=%v: %s is %v/%v (%v %v); a 401 is never a model failure", installed, id, row["status"], row["exit_status"], row["error_code"], row["error_message"])
			}
			if row["error_code"] == errcode.ProviderAuth {
				auth++
				if row["status"] != "error" || !strings.Contains(row["error_message"].(string), "HTTP 401") {
					t.Errorf("installed=%v: %s is %v with %q; want status error naming HTTP 401", installed, id, row["status"], row["error_message"])
				}
			}
		}
		if h3 := rows["h3"]; h3["status"] != "error" || h3["error_code"] != errcode.EndpointUnreachable || strings.Contains(h3["error_message"].(string), "driver: driver:") {
			t.Errorf("installed=%v: h3 is %v %v %q; want the error %s that stopped the run, said once", installed, h3["status"], h3["error_code"], h3["error_message"], errcode.EndpointUnreachable)
		}
		if auth != 2 {
			t.Errorf("installed=%v: %d rows with %s, want the two cases before the endpoint was declared unreachable; rows %v", installed, auth, errcode.ProviderAuth, rows)
		}
		junit := readFile(t, filepath.Join(out, "junit.xml"))
		if strings.Contains(junit, "<failure") || strings.Count(junit, `type="`+errcode.ProviderAuth+`"`) != 2 || !strings.Contains(junit, "HTTP 401") {
			t.Errorf("installed=%v: junit.xml wants two <error type=%q> naming HTTP 401 and no <failure>:\n%s", installed, errcode.ProviderAuth, junit)
		}
	}
}

// TestWrongKeyNightIsNotFlaky: three nights through the installed driver,
// the middle one with a wrong key. report calls no case flaky (the middle
// night's rows are errors, not verdicts) and shows that night as a harness
// outage naming E-EVL-014.
func TestWrongKeyNightIsNotFlaky(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	var refuse atomic.Bool
	srv := keyServer(t, &refuse)
	dir, dataset := helloCapsule(t, srv.URL)
	root := reachableTempDir(t)
	var runs []string
	for i, bad := range []bool{false, true, false} {
		refuse.Store(bad)
		out := filepath.Join(root, []string{"night1", "night2", "night3"}[i])
		r := runBinary(t, dir, "--dataset", dataset, "--out", out, "--workers", "1")
		if want := map[bool]int{false: 0, true: 3}[bad]; r.code != want {
			t.Fatalf("night %d: exit %d, want %d\nstderr:\n%s", i+1, r.code, want, r.stderr)
		}
		runs = append(runs, out)
	}
	page := filepath.Join(root, "trend.html")
	r := runBinary(t, append([]string{"report", "-o", page}, runs...)...)
	if r.code != 0 {
		t.Fatalf("report: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout, "flaky") {
		t.Errorf("report calls a case flaky because of a night of harness errors:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "harness outage") || !strings.Contains(r.stdout, errcode.ProviderAuth) {
		t.Errorf("report does not show night2 as a harness outage naming %s:\n%s", errcode.ProviderAuth, r.stdout)
	}
	if _, err := os.Stat(page); err != nil {
		t.Error(err)
	}
}

// TestDriverProviderTokens: through the installed driver (which, as
// murmur's, drops the provider's usage from its canonical response), the
// provider_*_tokens columns of results.parquet and the inference events of
// events.parquet hold the usage the provider sent (17 in, 4 out per turn),
// live (recorded) and replayed from that recording, with murmur's own
// token counts unchanged by the replay.
func TestDriverProviderTokens(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	var refuse atomic.Bool
	srv := keyServer(t, &refuse)
	dir, dataset := helloCapsule(t, srv.URL)
	out := filepath.Join(reachableTempDir(t), "run")
	rec := filepath.Join(t.TempDir(), "recordings")
	if r := runBinary(t, dir, "--dataset", dataset, "--out", out, "--workers", "2", "--record", rec); r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	replayed := filepath.Join(reachableTempDir(t), "replayed")
	if r := runBinary(t, dir, "--dataset", dataset, "--out", replayed, "--replay", rec); r.code != 0 {
		t.Fatalf("replay: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	live, again := resultsByCase(t, out), resultsByCase(t, replayed)
	for id, row := range live {
		if row["provider_input_tokens"] != int64(17) || row["provider_output_tokens"] != int64(4) {
			t.Errorf("%s: provider tokens %v/%v, want 17/4 (the provider's usage)", id, row["provider_input_tokens"], row["provider_output_tokens"])
		}
		for _, col := range []string{"provider_input_tokens", "provider_output_tokens", "input_tokens", "output_tokens", "status"} {
			if again[id][col] != row[col] {
				t.Errorf("%s: %s live %v, replayed %v", id, col, row[col], again[id][col])
			}
		}
	}
	inferences := 0
	for _, ev := range readParquet(t, filepath.Join(out, "events.parquet")).Rows {
		if ev["event_type"] != "inference" {
			continue
		}
		inferences++
		var e struct {
			In  *int64 `json:"provider_input_tokens"`
			Out *int64 `json:"provider_output_tokens"`
		}
		if err := json.Unmarshal([]byte(ev["event_json"].(string)), &e); err != nil || e.In == nil || e.Out == nil || *e.In != 17 || *e.Out != 4 {
			t.Errorf("inference event %v: want provider_input_tokens 17, provider_output_tokens 4", ev["event_json"])
		}
	}
	if inferences != 4 {
		t.Errorf("%d inference events, want 4", inferences)
	}
}

// TestDeniedDriverRequestIsAHarnessError: the driver's endpoint outside
// the capsule's network.allow, run anyway (--run-anyway): the network
// policy denies the installed driver every request, and each case is an
// error row with E-EVL-081 naming the denied target and the fix, not a
// failed case; no request reaches the server.
func TestDeniedDriverRequestIsAHarnessError(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	var refuse atomic.Bool
	var requests atomic.Int32
	srv := keyServer(t, &refuse)
	counted := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		srv.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(counted.Close)
	dir, dataset := helloCapsule(t, counted.URL)
	editManifest(t, dir, `allow: ["`+counted.URL+`"]`, `allow: ["https://elsewhere.example"]`)
	out := filepath.Join(reachableTempDir(t), "run")
	r := runBinary(t, dir, "--dataset", dataset, "--out", out, "--workers", "2", "--run-anyway")
	if r.code != 3 {
		t.Errorf("exit %d, want 3 (every case in error)\nstderr:\n%s", r.code, r.stderr)
	}
	rows := resultsByCase(t, out)
	if len(rows) != 4 {
		t.Errorf("%d rows, want 4", len(rows))
	}
	for id, row := range rows {
		msg, _ := row["error_message"].(string)
		if row["status"] != "error" || row["error_code"] != errcode.MurmurEndpointDenied || !strings.Contains(msg, strings.TrimPrefix(counted.URL, "http://")) {
			t.Errorf("%s: %v %v %q, want status error with %s naming the endpoint", id, row["status"], row["error_code"], msg, errcode.MurmurEndpointDenied)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the server, want none", n)
	}
}
