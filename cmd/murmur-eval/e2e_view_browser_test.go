package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/inference/replay"
	"github.com/murmur-nexus/murmur-eval/internal/tooltest"
)

// browserDir holds the Playwright script and its pinned playwright-core
// (package-lock.json; scripts/test-deps.sh runs npm ci there).
const browserDir = "testdata/browser"

// viewRecordings are a night's recordings of the view test's cases:
// hostileID is a case id that is itself hostile: markup, a '%' (which a
// page's name keeps escaped, so its link escapes it again) and a bidi
// override.
const hostileID = "hostile 100% <img src=x onerror=\"window.__pwned=4\"> \u202edi"

// multiply computes with calc (the expression given) and answers, hostile
// answers with HTML, script, a javascript: link, a bidi override and
// control characters.
func viewRecordings(expr, answer string) map[string]string {
	hostile := "<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2;alert(2)\">" +
		"<a href=\"javascript:window.__pwned=3\">click</a> \u202eevil\u0007 done"
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return map[string]string{
		"multiply": fmt.Sprintf(`{"stop_reason": "tool_call", "content": [{"type": "tool_call", "id": "call_1", "name": "calc", "input": {"expression": %s}}]}`+"\n"+
			`{"stop_reason": "end_turn", "content": [{"type": "text", "text": %s}]}`+"\n", q(expr), q(answer)),
		hostileID: fmt.Sprintf(`{"stop_reason": "end_turn", "content": [{"type": "text", "text": %s}]}`+"\n", q(hostile)),
		"plain":   `{"stop_reason": "end_turn", "content": [{"type": "text", "text": "plain 42"}]}` + "\n",
	}
}

// viewRun runs the view test's dataset with a night's recordings into a
// new run folder under root.
func viewRun(t *testing.T, qs, root, name string, recordings map[string]string) string {
	t.Helper()
	dir := filepath.Join(root, "data-"+name)
	rec := filepath.Join(dir, "recordings")
	if err := os.MkdirAll(rec, 0o755); err != nil {
		t.Fatal(err)
	}
	for id, body := range recordings {
		writeFile(t, filepath.Join(rec, replay.FileName(id)), body)
	}
	dataset := filepath.Join(dir, "cases.jsonl")
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	writeFile(t, dataset, `{"case_id": "multiply", "task": "What is 6 times 7?", "expected": {"result_contains": "42"}}
{"case_id": `+q(hostileID)+`, "task": "Say <b>hello</b>.", "expected": {"result_contains": "done"}}
{"case_id": "plain", "task": "Say 42.", "expected": {"result_contains": "42"}}
`)
	out := filepath.Join(root, name)
	r := runBinary(t, qs, "--dataset", dataset, "--replay", rec, "--out", out, "--workers", "2")
	if r.code != exitOK && r.code != exitGateFailed {
		t.Fatalf("run %s: exit %d\n%s", name, r.code, r.stderr)
	}
	return out
}

// TestViewInBrowser writes a run's site against its baseline with the real
// binary and drives it in Debian's Chromium with Playwright: from the
// index (its filters, its sort by tokens and by cost) to the failed case's
// page (its tool calls and the scorer's reason), the flipped case's two
// transcripts at their first divergent turn, and a hostile answer that
// must run no script.
func TestViewInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	node := tooltest.Require(t, "node")
	chromium := tooltest.Require(t, "chromium")
	if node == "" || chromium == "" {
		return
	}
	if _, err := os.Stat(filepath.Join(browserDir, "node_modules", "playwright-core", "package.json")); err != nil {
		tooltest.Missing(t, "playwright-core in "+browserDir+"/node_modules",
			"npm ci --no-audit --no-fund in cmd/murmur-eval/"+browserDir+" (PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1), or run scripts/test-deps.sh")
		return
	}
	qs := quickstart(t)
	root := reachableTempDir(t)
	base := viewRun(t, qs, root, "baseline", viewRecordings("6*7", "6 times 7 is 42."))
	run := viewRun(t, qs, root, "run", viewRecordings("6*8", "6 times 8 is 48."))
	site := filepath.Join(run, "site")
	r, _ := runE2E(t, []string{"view", run, base, "-o", site}, plainArgs())
	if r.code != exitOK || !strings.Contains(r.stdout, "1 verdict flipped") {
		t.Fatalf("view: exit %d, want 0 and one flip\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	checkViewServe(t, run)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	script, err := filepath.Abs(filepath.Join(browserDir, "view.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, node, script, site)
	cmd.Dir = browserDir
	cmd.Env = append(os.Environ(), "CHROMIUM="+chromium, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node view.mjs %s: %v\n%s", site, err, out)
	}
}

// checkViewServe serves the run's site with the real binary: the index
// and a case page answer, and an interrupt ends the server with exit 0.
func checkViewServe(t *testing.T, run string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := newCommand(ctx, t, []string{"view", run, "--serve", "127.0.0.1:0"}, plainArgs())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	_, url, ok := strings.Cut(strings.TrimSpace(line), "serving ")
	url, _, _ = strings.Cut(url, " ")
	if err != nil || !ok {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("view --serve printed %q (%v), want its URL\nstderr:\n%s", line, err, stderr.String())
	}
	for path, want := range map[string]string{"": `"id":"multiply"`, "cases/multiply.html": "tool call"} {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatalf("GET %s%s: %v", url, path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			t.Errorf("GET %s%s: %d, want 200 with %q", url, path, resp.StatusCode, want)
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("view --serve after an interrupt: %v, want exit 0\nstderr:\n%s", err, stderr.String())
	}
}
