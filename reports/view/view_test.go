package view

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/transcript"
)

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text\nand a tab\t", "plain text\nand a tab\t"},
		{"right-to-left \u202eevil", "right-to-left ⟨U+202E⟩evil"},
		{"bell\x07 escape\x1b[31m", "bell⟨U+0007⟩ escape⟨U+001B⟩[31m"},
		{"isolate \u2066x\u2069 zero\u200bwidth", "isolate ⟨U+2066⟩x⟨U+2069⟩ zero⟨U+200B⟩width"},
		{"c1 \u0085 del \x7f", "c1 ⟨U+0085⟩ del ⟨U+007F⟩"},
		{"bad \xff utf-8", "bad \uFFFD utf-8"},
		{"ünïcödé 日本 ok", "ünïcödé 日本 ok"},
	}
	for _, tt := range tests {
		if got := clean(tt.in); got != tt.want {
			t.Errorf("clean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPagePath(t *testing.T) {
	tests := []struct{ id, path, href string }{
		{"calc-multiply", "cases/calc-multiply.html", "cases/calc-multiply.html"},
		{"notes/round trip", "cases/notes%2Fround%20trip.html", "cases/notes%252Fround%2520trip.html"},
		{"../up", "cases/%2E.%2Fup.html", "cases/%252E.%252Fup.html"},
		{"<b>", "cases/%3Cb%3E.html", "cases/%253Cb%253E.html"},
	}
	for _, tt := range tests {
		if got := PagePath(tt.id); got != tt.path {
			t.Errorf("PagePath(%q) = %q, want %q", tt.id, got, tt.path)
		}
		if got := pageHref(tt.id); got != tt.href {
			t.Errorf("pageHref(%q) = %q, want %q", tt.id, got, tt.href)
		}
	}
}

func TestOpenRefuses(t *testing.T) {
	dir, empty := t.TempDir(), t.TempDir()
	file := filepath.Join(dir, "results.parquet")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, code string }{
		{filepath.Join(dir, "missing"), errcode.IONotFound},
		{file, errcode.Usage},
		{empty, errcode.IONotFound}, // a folder without results.parquet
	}
	for _, tt := range tests {
		_, err := Open(Options{Run: tt.path})
		if got := errcode.Code(err); got != tt.code {
			t.Errorf("Open(%s) = %v, want code %s", tt.path, err, tt.code)
		}
	}
}

// writeSite generates a run (and a baseline when base is not nil) and
// writes its site, returning the site's folder.
func writeSite(t *testing.T, cases, base []genCase) (string, Stats) {
	t.Helper()
	root := t.TempDir()
	run := filepath.Join(root, "run")
	genRun(t, run, "run1", cases)
	o := Options{Run: run}
	if base != nil {
		o.Baseline = filepath.Join(root, "base")
		genRun(t, o.Baseline, "base1", base)
	}
	s, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(run, "site")
	st, err := s.Write(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	return out, st
}

func readPage(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const hostileAnswer = "<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">" +
	"<a href=\"javascript:window.__pwned=3\">click</a> \u202eevil\x07 \x1b[31m"

func TestHostileCase(t *testing.T) {
	id := "hostile <img src=x onerror=alert(1)> \u202eid"
	out, _ := writeSite(t, []genCase{{id: id, answer: hostileAnswer, toolOutput: "</pre><script>alert(2)</script>"}}, nil)
	page := readPage(t, filepath.Join(out, filepath.FromSlash(PagePath(id))))
	index := readPage(t, filepath.Join(out, "index.html"))
	for name, html := range map[string]string{"case page": page, "index": index} {
		for _, bad := range []string{"<img", "<a href=\"javascript", "\u202e", "\x07", "\x1b", "<script>window", "<script>alert"} {
			if strings.Contains(html, bad) {
				t.Errorf("the %s holds %q", name, bad)
			}
		}
	}
	if n := strings.Count(page, "<script"); n != 0 {
		t.Errorf("the case page has %d script elements, want none", n)
	}
	if !strings.Contains(page, "⟨U&#43;202E⟩evil⟨U&#43;0007⟩") || !strings.Contains(page, "&lt;script&gt;window.__pwned=1&lt;/script&gt;") {
		t.Errorf("the case page does not show the answer escaped and its hidden characters visible:\n%s", page)
	}
	if !strings.Contains(page, `content="default-src &#39;none&#39;; style-src &#39;unsafe-inline&#39;; base-uri &#39;none&#39;; form-action &#39;none&#39;; script-src &#39;none&#39;"`) {
		t.Error("the case page's CSP forbids less than it should")
	}
	checkIndexScript(t, index)
}

// checkIndexScript checks that the index has its data block and one
// inline script, allowed by its hash in the page's CSP.
func checkIndexScript(t *testing.T, index string) {
	t.Helper()
	if n := strings.Count(index, "<script"); n != 2 {
		t.Errorf("the index has %d script elements, want 2 (data and code)", n)
	}
	m := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindStringSubmatch(index)
	if m == nil {
		t.Fatal("the index has no inline script")
	}
	sum := sha256.Sum256([]byte(m[1]))
	want := "script-src &#39;sha256-" + strings.ReplaceAll(base64.StdEncoding.EncodeToString(sum[:]), "+", "&#43;") + "&#39;"
	if !strings.Contains(index, want) {
		t.Errorf("the index's CSP does not allow its script by hash (%s)", want)
	}
	data := regexp.MustCompile(`(?s)<script type="application/json" id="rows">(.*?)</script>`).FindStringSubmatch(index)
	if data == nil || strings.ContainsAny(data[1], "<>") {
		t.Errorf("the index's data block is missing or holds < or >: %v", data)
	}
}

func TestFlipSideBySide(t *testing.T) {
	run := []genCase{{id: "flip", answer: "41", toolOutput: "41"}, {id: "same", answer: "42", toolOutput: "42", passed: true}}
	base := []genCase{{id: "flip", answer: "42", toolOutput: "42", passed: true}, {id: "same", answer: "42", toolOutput: "42", passed: true}}
	out, st := writeSite(t, run, base)
	if st.Flips != 1 || st.Pages != 2 {
		t.Errorf("stats %+v, want 1 flip and 2 pages", st)
	}
	page := readPage(t, filepath.Join(out, "cases", "flip.html"))
	for _, want := range []string{
		"Verdict flipped", "passed in the baseline, failed here",
		"First divergent turn: turn 0 of attempt 1 (turn 1 of the conversation, counted from 1): the tool output of calc differs.",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the flipped case's page lacks %q", want)
		}
	}
	if n := strings.Count(page, `class="turn div"`); n != 2 {
		t.Errorf("%d turns marked divergent, want 2 (one a side)", n)
	}
	if same := readPage(t, filepath.Join(out, "cases", "same.html")); strings.Contains(same, "Verdict flipped") {
		t.Error("a case that did not flip shows a flip")
	}
	if index := readPage(t, filepath.Join(out, "index.html")); !strings.Contains(index, `"f":"passed→failed"`) {
		t.Error("the index does not mark the flip")
	}
}

func TestNoTranscript(t *testing.T) {
	out, _ := writeSite(t, []genCase{{id: "old", answer: "42", toolOutput: "42", passed: true, noTrans: true}}, nil)
	page := readPage(t, filepath.Join(out, "cases", "old.html"))
	for _, want := range []string{"The transcript was not kept", `<strong class="tool">calc</strong>`, "network_denied"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page of a session without a transcript lacks %q", want)
		}
	}
}

func TestBounds(t *testing.T) {
	big := strings.Repeat("line of tool output\n", 20_000) // 400 KB
	out, _ := writeSite(t, []genCase{{id: "big", answer: "ok", toolOutput: big, traceBytes: 1 << 20}}, nil)
	path := filepath.Join(out, "cases", "big.html")
	page := readPage(t, path)
	if len(page) > 2*maxPage {
		t.Errorf("the page is %d bytes, want at most %d", len(page), 2*maxPage)
	}
	if !strings.Contains(page, "more not shown: <a href=\"../../sessions/ses_run1_000000/logs/transcript.jsonl\">the raw file</a>") {
		t.Error("the cut tool output does not link the raw transcript")
	}
	if !strings.Contains(page, "<details><summary>line of tool output (") {
		t.Error("the long tool output is not folded")
	}
}

func TestNotable(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{`{"event_type":"inference","turn":0,"decision":"tool_call"}`, false},
		{`{"event_type":"inference","turn":0,"origin":"hook:judge"}`, true},
		{`{"event_type":"tool_call","turn":0,"status":"ok"}`, false},
		{`{"event_type":"tool_call","turn":0,"status":"denied"}`, true},
		{`{"event_type":"session_start"}`, false},
		{`{"event_type":"hook_dispatch_error","hook_name":"h"}`, true},
		{`{"event_type":"network_denied","host":"x"}`, true},
		{`{"event_type":"task_reopened","hook_name":"h"}`, true},
	}
	for _, tt := range tests {
		e := transcript.TraceEvent{Raw: []byte(tt.line)}
		if err := json.Unmarshal([]byte(tt.line), &e); err != nil {
			t.Fatal(err)
		}
		if got := e.Notable(); got != tt.want {
			t.Errorf("Notable(%s) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

func TestWorkspaceDiff(t *testing.T) {
	diff := "--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-<old>\n+<new>\n"
	out, _ := writeSite(t, []genCase{{id: "d", answer: "ok", toolOutput: "ok", passed: true, diff: diff}}, nil)
	page := readPage(t, filepath.Join(out, "cases", "d.html"))
	for _, want := range []string{"<h3>Workspace diff</h3><pre>--- a/x.go\n", "\n-&lt;old&gt;\n&#43;&lt;new&gt;\n</pre>", `<a href="../../sessions/ses_run1_000000/out/workspace.diff">out/workspace.diff</a>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
