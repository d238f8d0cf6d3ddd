package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference/apitest"
)

// TestWASMToolCannotFollowAShellLink is finding 2 of issue 13 through the
// real binary: a bash tool plants links to /, to a host folder and to a
// root-only host file; a WASM tool (running inside murmur-eval's process,
// as root when the tests run as root) then reads, writes and lists through
// them. Nothing outside the session may be read, written or listed, while
// a link that stays inside the session still works, and a plain case
// next to it passes.
func TestWASMToolCannotFollowAShellLink(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	e2eBinary(t)
	base, err := os.MkdirTemp("", "escape-wasm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	host := filepath.Join(base, "host")
	if err := os.Mkdir(host, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(host, "secret")
	const secretText = "host secret 7d1f"
	if err := os.WriteFile(secret, []byte(secretText), 0o600); err != nil {
		t.Fatal(err)
	}

	dir := copyCapsule(t, "cmd/murmur-eval/testdata/escape")
	installTool(t, dir, "fileop", "./cmd/murmur-eval/testdata/escape/tools/fileop")
	plant := "echo inside > in.txt && ln -s in.txt inlink && ln -s / hostroot && ln -s " + host + " hd && ln -s " + secret + " sec && echo planted"
	ops := map[string]any{
		"read":  []string{"/inlink", "/hostroot" + secret, "/hd/secret", "/sec", "/hostroot/etc/shadow"},
		"write": []string{"/hd/pwned", "/hostroot" + host + "/pwned2", "/sec"},
		"list":  []string{"/hd", "/hostroot/etc"},
	}
	cases := []scripted{
		{id: "plain"},
		{id: "wasm-follows-link", calls: append(bash(plant), toolUse{"fileop", ops})},
	}
	writeScripted(t, dir, cases)

	out, r := newFixture(t, dir).run("--workers", "2", "--timeout", "60s", "--progress", "none")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", r.code, r.stderr)
	}
	if b, err := os.ReadFile(secret); err != nil || string(b) != secretText {
		t.Errorf("host file %s = %q, %v; want it unchanged", secret, b, err)
	}
	if des, _ := os.ReadDir(host); len(des) != 1 {
		t.Errorf("host folder holds %d entries; want only secret", len(des))
	}
	byCase := resultsByCase(t, out)
	for _, c := range cases {
		if row := byCase[c.id]; row["status"] != "passed" {
			t.Errorf("case %s: status %v (%v)", c.id, row["status"], row["error_message"])
		}
	}
	sdir := filepath.Join(out, filepath.FromSlash(fmt.Sprint(byCase["wasm-follows-link"]["session_dir"])))
	calls := toolCalls(t, filepath.Join(sdir, "trace.jsonl"))
	if len(calls) != 2 || !strings.Contains(fmt.Sprint(calls[0]["output"]), "planted") {
		t.Fatalf("tool calls %v; want bash to have planted the links, then fileop", calls)
	}
	got := fmt.Sprint(calls[1]["output"])
	if strings.Contains(got, secretText) || strings.Contains(got, "root:") {
		t.Errorf("the WASM tool read a host file:\n%s", got)
	}
	if !strings.Contains(got, `read /inlink: ok: "inside\n"`) {
		t.Errorf("a link inside the session no longer works:\n%s", got)
	}
	for _, line := range strings.Split(got, "\n") {
		if strings.Contains(line, "/inlink") {
			continue
		}
		if !strings.Contains(line, "Operation not permitted") {
			t.Errorf("not refused: %s", line)
		}
	}
}

// TestCredentialsNeverFollowARedirect is finding 4 of issue 13 through the
// real binary: the model endpoint answers one case's first request with a
// 307 to another loopback address, and the OTLP collector answers every
// export with a 307 there too. The other address logs whatever reaches
// it: no request may (so neither x-api-key, nor the OTLP header, nor the
// conversation), the redirected case ends with the provider's refusal
// (E-EVL-015) and the other cases pass as they do without it.
func TestCredentialsNeverFollowARedirect(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := quickstart(t)
	t.Parallel()
	var mu sync.Mutex
	var leaked []string
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no second loopback address: %v", err)
	}
	other := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		leaked = append(leaked, fmt.Sprintf("%s %s headers=%v body=%d bytes", r.Method, r.URL, r.Header, len(body)))
		mu.Unlock()
	})}
	go other.Serve(ln)
	t.Cleanup(func() { other.Close() })
	elsewhere := "http://" + ln.Addr().String()

	ids := datasetIDs(t, filepath.Join(dir, "cases.jsonl"))
	target := ids[0]
	srv := anthropicFromRecordings(t, dir, func(caseID string, turn int) *apitest.Reply {
		if caseID != target || turn != 0 {
			return nil
		}
		return &apitest.Reply{Status: http.StatusTemporaryRedirect, Header: map[string]string{"Location": elsewhere + "/v1/messages"}}
	})
	collector := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere+r.URL.Path, http.StatusTemporaryRedirect)
	})}
	cl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go collector.Serve(cl)
	t.Cleanup(func() { collector.Close() })

	manifest := filepath.Join(dir, "murmur.yaml")
	yaml, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	yaml = bytes.Replace(yaml, []byte("endpoint: https://api.anthropic.com"), []byte("endpoint: "+srv.URL), 1)
	if err := os.WriteFile(manifest, yaml, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(reachableTempDir(t), "run")
	cmd := command(t.Context(), t, dir, "--dataset", filepath.Join(dir, "cases.jsonl"), "--out", out,
		"--progress", "none", "--otel-endpoint", "http://"+cl.Addr().String(), "--driver", "builtin")
	cmd.Env = append(cmd.Env, "ANTHROPIC_API_KEY=sk-redirect-secret", "OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer otel-secret")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run() // the redirected case is an error: the exit code says so

	mu.Lock()
	defer mu.Unlock()
	if len(leaked) > 0 {
		t.Errorf("%d requests reached the redirect target:\n%s", len(leaked), strings.Join(leaked, "\n"))
	}
	if n := len(srv.Requests()); n == 0 {
		t.Fatalf("the model endpoint saw no request: the test proves nothing\nstderr:\n%s", stderr.String())
	}
	expected := readExpectedStatuses(t, filepath.Join(dir, "expected-statuses.json"))
	for id, row := range resultsByCase(t, out) {
		switch {
		case id == target:
			if row["status"] != "error" || row["error_code"] != "E-EVL-015" || !strings.Contains(fmt.Sprint(row["error_message"]), "307") {
				t.Errorf("redirected case %s: status %v, code %v, message %v; want error E-EVL-015 naming the 307", id, row["status"], row["error_code"], row["error_message"])
			}
		case row["status"] != expected[id]:
			t.Errorf("case %s: status %v, want %s", id, row["status"], expected[id])
		}
	}
}

// toolCalls returns the tool_call events of a trace in order.
func toolCalls(t *testing.T, path string) []map[string]any {
	t.Helper()
	var calls []map[string]any
	for _, line := range readLines(t, path) {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		if e["event_type"] == "tool_call" {
			calls = append(calls, e)
		}
	}
	return calls
}
