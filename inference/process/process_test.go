package process

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sync/errgroup"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/internal/fakeclaude/fakeclaudetest"
)

// fakeClaude is the path of internal/fakeclaude, built once by TestMain.
var fakeClaude string

func TestMain(m *testing.M) {
	path, cleanup, err := fakeclaudetest.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeClaude = path
	code := m.Run()
	cleanup()
	os.Exit(code)
}

func TestClaudeArgs(t *testing.T) {
	got := ClaudeArgs(ClaudeOptions{SystemPrompt: "notices"})
	want := []string{"--print", "--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
		"--tools", "", "--system-prompt", "notices"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("no tools (-want +got):\n%s", diff)
	}
	got = ClaudeArgs(ClaudeOptions{Model: "opus", Tools: []string{"calc", "notes"}, MCPConfig: "{}", SystemPrompt: "p"})
	want = []string{"--print", "--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
		"--model", "opus", "--tools", "mcp__claude_bridge__calc,mcp__claude_bridge__notes", "--mcp-config", "{}",
		"--strict-mcp-config", "--permission-mode", "bypassPermissions", "--system-prompt", "p"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("with tools (-want +got):\n%s", diff)
	}
}

func TestUserLine(t *testing.T) {
	got := string(UserLine("add \"1\"\nand 2"))
	want := `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"add \"1\"\nand 2"}]}}` + "\n"
	if got != want {
		t.Errorf("UserLine = %s, want %s", got, want)
	}
}

func TestDialectOf(t *testing.T) {
	for cmd, want := range map[string]string{"claude": DialectClaude, "/usr/bin/codex": DialectCodex, "codex-wrapper": DialectClaude} {
		if got := DialectOf(cmd); got != want {
			t.Errorf("DialectOf(%q) = %s, want %s", cmd, got, want)
		}
	}
}

func TestParserPairsToolUsesAndSkipsThinking(t *testing.T) {
	p := NewParser()
	t0 := time.Unix(100, 0)
	lines := []string{
		`{"type":"system","subtype":"init"}`,
		``,
		`{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"x"},{"type":"redacted_thinking","data":"y"}]}}`,
		`{"type":"assistant","message":{"content":[]}}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"let me"},{"type":"tool_use","id":"a","name":"mcp__claude_bridge__calc","input":{"expr":"1+1"}},{"type":"tool_use","id":"b","name":"Bash"}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"b","content":"denied","is_error":true},{"type":"tool_result","tool_use_id":"zzz","content":"x"},{"type":"tool_result","tool_use_id":"a","content":[{"type":"text","text":"2"},{"type":"image"},{"type":"text","text":"!"}]}]}}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"2"}]}}`,
		`{"type":"result","subtype":"success","result":"2"}`,
	}
	var turns []Turn
	var results []ToolResult
	var final *Result
	for i, l := range lines {
		ev, err := p.Line([]byte(l), t0.Add(time.Duration(i)*time.Second))
		if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if ev.Turn != nil {
			ev.Turn.Content = nil
			turns = append(turns, *ev.Turn)
		}
		results = append(results, ev.ToolResults...)
		if ev.Result != nil {
			final = ev.Result
		}
	}
	wantTurns := []Turn{{Index: 0, Decision: DecisionToolCall, ToolName: "calc"}, {Index: 1, Decision: DecisionEndTurn}}
	if diff := cmp.Diff(wantTurns, turns); diff != "" {
		t.Errorf("turns (-want +got):\n%s", diff)
	}
	wantResults := []ToolResult{
		{Turn: 0, Name: "Bash", Input: json.RawMessage("{}"), Text: "denied", IsError: true, Duration: time.Second},
		{Turn: 0, Name: "calc", Input: json.RawMessage(`{"expr":"1+1"}`), Text: "2\n!", Duration: time.Second},
	}
	if diff := cmp.Diff(wantResults, results); diff != "" {
		t.Errorf("tool results (-want +got):\n%s", diff)
	}
	if final == nil || !final.Success() || final.Text != "2" {
		t.Errorf("result = %+v", final)
	}
	if p.Turns() != 2 {
		t.Errorf("Turns() = %d, want 2", p.Turns())
	}
}

func TestParserRefusesMalformedLines(t *testing.T) {
	for _, l := range []string{`{"type":"assistant"`, `not json`, `{"type":"assistant","message":{"content":[1]}}`, `{"type":"user","message":"x"}`} {
		if _, err := NewParser().Line([]byte(l), time.Now()); err == nil {
			t.Errorf("Line(%s) = nil error", l)
		}
	}
}

// FuzzParserLine: no line panics the parser, a turn is counted only for
// an assistant event, and a tool result always names a remembered use.
func FuzzParserLine(f *testing.F) {
	for _, s := range []string{
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"a","name":"mcp__claude_bridge__x","input":{}}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a","content":"x"}]}}`,
		`{"type":"result","subtype":"success","result":"x"}`,
		`{"type":"assistant","message":{"content":[{"type":"thinking"}]}}`,
		`{"type":"assistant","message":null}`, `{}`, `[]`, `null`, "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		p := NewParser()
		_, _ = p.Line([]byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"a","name":"t"}]}}`), time.Now())
		before := p.Turns()
		ev, err := p.Line([]byte(line), time.Now())
		if err != nil {
			if ev.Turn != nil || ev.Result != nil || len(ev.ToolResults) > 0 {
				t.Errorf("error %v with an event %+v", err, ev)
			}
			return
		}
		if (ev.Turn != nil) != (p.Turns() == before+1) {
			t.Errorf("turn %v but count %d -> %d", ev.Turn, before, p.Turns())
		}
		for _, r := range ev.ToolResults {
			if r.Name != "t" || string(r.Input) != "{}" {
				t.Errorf("tool result %+v answers no remembered use", r)
			}
		}
	})
}

// echoBridge is a bridge whose one tool echoes its input.
func echoBridge(t *testing.T) (*Bridge, *[]string) {
	t.Helper()
	var calls []string
	b, err := StartBridge([]inference.Tool{{Name: "echo", Description: "echoes", Parameters: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)}, {Name: "bare"}},
		func(name string, input json.RawMessage) (string, bool) {
			calls = append(calls, name+" "+string(input))
			return "got " + string(input), name != "echo"
		})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, &calls
}

func post(t testing.TB, url, auth, body string) (int, string, http.Header) {
	t.Helper()
	status, out, h, err := postErr(url, auth, body)
	if err != nil {
		t.Fatal(err)
	}
	return status, out, h
}

// postErr is post for goroutines other than the test's, which must not
// call t.Fatal.
func postErr(url, auth, body string) (int, string, http.Header, error) {
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		return 0, "", nil, err
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out), resp.Header, err
}

func TestBridgeSpeaksJSONRPC(t *testing.T) {
	b, calls := echoBridge(t)
	if !strings.HasPrefix(b.URL(), "http://127.0.0.1:") || !strings.HasSuffix(b.URL(), "/bridge") {
		t.Errorf("URL %s", b.URL())
	}
	auth := "Bearer " + b.Token()
	tests := []struct {
		name, auth, body string
		status           int
		want             string
	}{
		{"no token", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 401, ""},
		{"wrong token", "Bearer " + strings.Repeat("0", 32), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 401, ""},
		{"token without scheme", b.Token(), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 401, ""},
		{"initialize", auth, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`, 200,
			`{"id":0,"jsonrpc":"2.0","result":{"capabilities":{"tools":{}},"protocolVersion":"2025-06-18","serverInfo":{"name":"murmur-eval-bridge","version":"1"}}}`},
		{"initialize without version", auth, `{"jsonrpc":"2.0","id":"i","method":"initialize"}`, 200,
			`{"id":"i","jsonrpc":"2.0","result":{"capabilities":{"tools":{}},"protocolVersion":"2024-11-05","serverInfo":{"name":"murmur-eval-bridge","version":"1"}}}`},
		{"notification", auth, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 202, ""},
		{"ping", auth, `{"jsonrpc":"2.0","id":5,"method":"ping"}`, 200, `{"id":5,"jsonrpc":"2.0","result":{}}`},
		{"tools/list", auth, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 200,
			`{"id":1,"jsonrpc":"2.0","result":{"tools":[{"name":"echo","description":"echoes","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}},{"name":"bare","inputSchema":{"type":"object"}}]}}`},
		{"tools/call", auth, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"x":"y"}}}`, 200,
			`{"id":2,"jsonrpc":"2.0","result":{"content":[{"text":"got {\"x\":\"y\"}","type":"text"}],"isError":false}}`},
		{"tools/call error", auth, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"bare"}}`, 200,
			`{"id":3,"jsonrpc":"2.0","result":{"content":[{"text":"got {}","type":"text"}],"isError":true}}`},
		{"tools/call without name", auth, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{}}`, 200,
			`{"error":{"code":-32602,"message":"invalid params: tools/call needs a name"},"id":4,"jsonrpc":"2.0"}`},
		{"unknown method", auth, `{"jsonrpc":"2.0","id":6,"method":"resources/list"}`, 200,
			`{"error":{"code":-32601,"message":"method not found"},"id":6,"jsonrpc":"2.0"}`},
		{"batch", auth, `[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`, 400, ""},
		{"not json", auth, `{`, 400, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body, hdr := post(t, b.URL(), tt.auth, tt.body)
			if status != tt.status {
				t.Fatalf("status %d (%s), want %d", status, body, tt.status)
			}
			if tt.want != "" && body != tt.want {
				t.Errorf("body\n%s\nwant\n%s", body, tt.want)
			}
			if tt.name == "initialize" && hdr.Get("Mcp-Session-Id") == "" {
				t.Error("initialize set no Mcp-Session-Id")
			}
		})
	}
	if diff := cmp.Diff([]string{`echo {"x":"y"}`, "bare {}"}, *calls); diff != "" {
		t.Errorf("dispatched (-want +got):\n%s", diff)
	}
	resp, err := http.Get(b.URL())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET answered %d, want 405", resp.StatusCode)
	}
	var cfg struct {
		MCPServers map[string]struct {
			Type, URL string
			Headers   map[string]string
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(b.MCPConfig()), &cfg); err != nil {
		t.Fatal(err)
	}
	s := cfg.MCPServers["claude_bridge"]
	if s.Type != "http" || s.URL != b.URL() || s.Headers["Authorization"] != auth {
		t.Errorf("MCPConfig %s", b.MCPConfig())
	}
}

// FuzzParseRequest: ParseRequest never panics, and what it accepts has a
// method and an id that is absent, null, a string or a number.
func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"method":"x"}`, `{"id":{},"method":"x"}`, `[]`, `{"id":"a","method":"tools/call","params":{"name":"x"}}`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := ParseRequest(body)
		if err != nil {
			return
		}
		if r.Method == "" {
			t.Errorf("accepted a request with no method: %q", body)
		}
		if len(r.ID) > 0 {
			var v any
			if json.Unmarshal(r.ID, &v) != nil {
				t.Errorf("id %q is not JSON", r.ID)
			}
			switch v.(type) {
			case nil, string, float64:
			default:
				t.Errorf("accepted id %s", r.ID)
			}
		}
	})
}

// runFake runs the fake CLI on a task; events are collected.
func runFake(t *testing.T, ctx context.Context, task string, c Command) (Result, []Event, error) {
	t.Helper()
	c.Path, c.Dir, c.Stdin = fakeClaude, t.TempDir(), UserLine(task)
	var evs []Event
	res, err := Run(ctx, c, NewParser(), func(ev Event) error { evs = append(evs, ev); return nil })
	return res, evs, err
}

func TestRunOutcomes(t *testing.T) {
	tests := []struct {
		task, failure string
		result        string
		turns         int
	}{
		{"scenario end_turn", "", "done", 1},
		{"scenario thinking", "", "42", 1},
		{"scenario error_result", "inference subprocess returned result subtype 'error_during_execution'; stderr: API Error: 529 overloaded", "", 1},
		{"scenario no_result", "inference subprocess closed stdout without producing a result; stderr: fakeclaude: leaving early", "", 1},
		{"scenario malformed", "malformed stream-json line from inference subprocess: invalid character 'o' looking for beginning of object key string; stderr: fakeclaude: about to print garbage", "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.task, func(t *testing.T) {
			start := time.Now()
			res, evs, err := runFake(t, context.Background(), tt.task, Command{})
			var f *Failure
			switch {
			case tt.failure == "" && err != nil:
				t.Fatalf("err = %v", err)
			case tt.failure != "" && (!errors.As(err, &f) || f.Msg != tt.failure):
				t.Fatalf("err = %v, want failure %q", err, tt.failure)
			}
			if res.Text != tt.result {
				t.Errorf("result %q, want %q", res.Text, tt.result)
			}
			n := 0
			for _, ev := range evs {
				if ev.Turn != nil {
					n++
				}
			}
			if n != tt.turns {
				t.Errorf("%d turns, want %d", n, tt.turns)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
}

func TestRunPassesEnvAndDir(t *testing.T) {
	res, _, err := runFake(t, context.Background(), "scenario env FAKE_SECRET", Command{Env: []string{"FAKE_SECRET=s3"}})
	if err != nil || res.Text != "s3" {
		t.Errorf("Run = %+v, %v", res, err)
	}
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] != "Z" && syscall.Kill(pid, 0) == nil
}

func TestRunKillsTheProcessGroup(t *testing.T) {
	for _, how := range []string{"cap", "context"} {
		t.Run(how, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			ctx := context.Background()
			c := Command{Cap: time.Minute}
			if how == "cap" {
				c.Cap = 1500 * time.Millisecond
			} else {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 1500*time.Millisecond)
				defer cancel()
			}
			start := time.Now()
			_, _, err := runFake(t, ctx, "scenario hang "+pidFile, c)
			took := time.Since(start)
			var f *Failure
			if how == "cap" && (!errors.As(err, &f) || !strings.HasPrefix(f.Msg, "inference subprocess timed out after 1.5s")) {
				t.Errorf("err = %v, want the timeout failure", err)
			}
			if how == "context" && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v, want the context's", err)
			}
			if took > 6*time.Second {
				t.Errorf("took %s to stop", took)
			}
			b, _ := os.ReadFile(pidFile)
			pid, _ := strconv.Atoi(string(b))
			deadline := time.Now().Add(2 * time.Second)
			for pid > 0 && alive(pid) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if pid == 0 || alive(pid) {
				t.Errorf("the CLI's child %d outlived the run", pid)
			}
		})
	}
}

// TestBridgeHammer: many concurrent tools/call requests, each answered
// with its own input, and never two dispatches at once.
func TestBridgeHammer(t *testing.T) {
	var inFlight, overlap atomic.Int32
	b, err := StartBridge([]inference.Tool{{Name: "t"}}, func(name string, input json.RawMessage) (string, bool) {
		if inFlight.Add(1) > 1 {
			overlap.Add(1)
		}
		time.Sleep(100 * time.Microsecond)
		inFlight.Add(-1)
		return string(input), false
	})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	auth := "Bearer " + b.Token()
	var g errgroup.Group
	for w := range 16 {
		g.Go(func() error {
			for i := range 20 {
				arg := fmt.Sprintf(`{"w":%d,"i":%d}`, w, i)
				status, body, _, err := postErr(b.URL(), auth, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":`+arg+`}}`)
				if err != nil {
					return err
				}
				var r struct {
					Result struct {
						Content []struct{ Text string } `json:"content"`
					} `json:"result"`
				}
				if status != 200 || json.Unmarshal([]byte(body), &r) != nil || len(r.Result.Content) != 1 || r.Result.Content[0].Text != arg {
					return fmt.Errorf("call %s: %d %s", arg, status, body)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if n := overlap.Load(); n != 0 {
		t.Errorf("%d dispatches overlapped another", n)
	}
}

// A stream-json line, message or content that does not decode is the
// decoder's error, wrapped (errors.As reaches it), under the same text.
func TestParserWrapsTheDecodeError(t *testing.T) {
	for _, tc := range []struct {
		line string
		as   func(error) bool
	}{
		{`{"type":`, func(err error) bool { var e *json.SyntaxError; return errors.As(err, &e) }},
		{`{"type":"assistant","message":"text"}`, func(err error) bool { var e *json.UnmarshalTypeError; return errors.As(err, &e) }},
		{`{"type":"assistant","message":{"content":[5]}}`, func(err error) bool { var e *json.UnmarshalTypeError; return errors.As(err, &e) }},
	} {
		_, err := NewParser().Line([]byte(tc.line), time.Time{})
		if err == nil || !strings.Contains(err.Error(), "malformed stream-json") || !tc.as(err) {
			t.Errorf("Line(%s) = %v, want the decoder's error wrapped", tc.line, err)
		}
	}
}
