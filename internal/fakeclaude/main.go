// Command fakeclaude stands in for Claude Code in tests of the process
// transport. It reads the one stdin line murmur-eval writes, takes its
// scenario from the task's first line ("scenario NAME ARGS..."), and
// prints stream-json events as Claude Code does; for tool calls it speaks
// to the Claude Bridge named in --mcp-config over HTTP with the bearer
// token, as the real CLI's MCP client does.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "--sleep" {
		time.Sleep(5 * time.Minute)
		return
	}
	line, _ := bufio.NewReader(os.Stdin).ReadBytes('\n')
	var in struct {
		Message struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal(line, &in); err != nil || len(in.Message.Content) != 1 {
		fmt.Fprintf(os.Stderr, "fakeclaude: bad stdin line %q\n", line)
		os.Exit(2)
	}
	task := in.Message.Content[0].Text
	first, _, _ := strings.Cut(task, "\n")
	words := strings.Fields(first)
	if len(words) < 2 || words[0] != "scenario" {
		words = []string{"scenario", "end_turn"}
	}
	args := words[2:]
	switch words[1] {
	case "end_turn": // murmur's own fake: two lines
		emit(`{"type":"assistant","message":{"content":[{"type":"text","text":"done"}]}}`)
		emit(`{"type":"result","subtype":"success","result":"done"}`)
	case "argv":
		b, _ := json.Marshal(os.Args[1:])
		emit(`{"type":"assistant","message":{"content":[{"type":"text","text":"argv"}]}}`)
		result("success", string(b))
	case "env":
		emit(`{"type":"assistant","message":{"content":[{"type":"text","text":"env"}]}}`)
		result("success", os.Getenv(args[0]))
	case "tool": // tool NAME JSON-INPUT
		toolScenario(args[0], strings.Join(args[1:], " "))
	case "thinking":
		emit(`{"type":"system","subtype":"init","session_id":"s","tools":[]}`)
		emit(`{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"hmm","signature":"x"}]}}`)
		emit(`{"type":"assistant","message":{"content":[{"type":"redacted_thinking","data":"x"}]}}`)
		emit(`{"type":"assistant","message":{"content":[]}}`)
		emit(`{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"so"},{"type":"text","text":"42"}]}}`)
		result("success", "42")
	case "turns": // turns N: N text turns, then success
		n, _ := strconv.Atoi(args[0])
		for i := 0; i < n; i++ {
			emit(fmt.Sprintf(`{"type":"assistant","message":{"content":[{"type":"text","text":"turn %d"}]}}`, i))
		}
		result("success", "after "+args[0])
	case "error_result":
		emit(`{"type":"assistant","message":{"content":[{"type":"text","text":"trying"}]}}`)
		fmt.Fprintln(os.Stderr, "API Error: 529 overloaded")
		result("error_during_execution", "")
	case "max_turns_result": // Claude Code's own --max-turns ending
		emit(`{"type":"assistant","message":{"content":[{"type":"text","text":"still working"}]}}`)
		result("error_max_turns", "")
	case "no_result":
		emit(`{"type":"assistant","message":{"content":[{"type":"text","text":"bye"}]}}`)
		fmt.Fprintln(os.Stderr, "fakeclaude: leaving early")
	case "malformed":
		emit(`{"type":"assistant","message":{"content":[{"type":"text","text":"ok"}]}}`)
		fmt.Fprintln(os.Stderr, "fakeclaude: about to print garbage")
		emit(`{"type":"assistant", oops`)
		time.Sleep(time.Minute)
	case "hang": // a child in the same process group hangs too
		self, _ := os.Executable()
		child := exec.Command(self, "--sleep")
		if err := child.Start(); err != nil {
			fail("start child: %v", err)
		}
		if len(args) > 0 {
			_ = os.WriteFile(args[0], []byte(strconv.Itoa(child.Process.Pid)), 0o644)
		}
		emit(`{"type":"assistant","message":{"content":[{"type":"text","text":"thinking hard"}]}}`)
		time.Sleep(10 * time.Minute)
	case "badtoken":
		cfg := bridgeConfig()
		b := &bridge{url: cfg.URL, auth: "Bearer wrong"}
		status, _ := b.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		emit(`{"type":"assistant","message":{"content":[{"type":"text","text":"probing"}]}}`)
		result("success", strconv.Itoa(status))
	default:
		fmt.Fprintf(os.Stderr, "fakeclaude: unknown scenario %q\n", words[1])
		os.Exit(2)
	}
}

func emit(s string) { fmt.Println(s) }

func result(subtype, text string) {
	b, _ := json.Marshal(map[string]any{"type": "result", "subtype": subtype, "result": text, "is_error": subtype != "success"})
	emit(string(b))
}

type server struct {
	Type    string            `json:"type"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// bridgeConfig reads the claude_bridge server from --mcp-config.
func bridgeConfig() server {
	for i, a := range os.Args {
		if a == "--mcp-config" && i+1 < len(os.Args) {
			var cfg struct {
				MCPServers map[string]server `json:"mcpServers"`
			}
			if err := json.Unmarshal([]byte(os.Args[i+1]), &cfg); err != nil {
				fail("bad --mcp-config: %v", err)
			}
			return cfg.MCPServers["claude_bridge"]
		}
	}
	fail("no --mcp-config")
	return server{}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "fakeclaude: "+format+"\n", args...)
	os.Exit(3)
}

type bridge struct{ url, auth string }

func (b *bridge) post(body string) (int, []byte) {
	req, _ := http.NewRequest("POST", b.url, bytes.NewBufferString(body))
	req.Header.Set("Authorization", b.auth)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fail("bridge: %v", err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// rpc posts a request and returns its result, failing on anything else.
func (b *bridge) rpc(body string) json.RawMessage {
	status, out := b.post(body)
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if status != 200 || json.Unmarshal(out, &r) != nil || r.Error != nil {
		fail("bridge answered %d %s to %s", status, out, body)
	}
	return r.Result
}

// toolScenario does what Claude Code does for one bridged tool call: the
// MCP handshake, tools/list, then the model's tool_use, the call, the
// user tool_result, and a final answer quoting the tool.
func toolScenario(name, input string) {
	cfg := bridgeConfig()
	if cfg.Type != "http" {
		fail("server type %q, want http", cfg.Type)
	}
	b := &bridge{url: cfg.URL, auth: cfg.Headers["Authorization"]}
	b.rpc(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fakeclaude","version":"0"}}}`)
	if status, _ := b.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != http.StatusAccepted {
		fail("notifications/initialized answered %d, want 202", status)
	}
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	_ = json.Unmarshal(b.rpc(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), &list)
	found := false
	for _, t := range list.Tools {
		found = found || t.Name == name
	}
	if !found {
		fail("tools/list has no %q: %+v", name, list.Tools)
	}
	emit(`{"type":"system","subtype":"init","session_id":"s","tools":["mcp__claude_bridge__` + name + `"]}`)
	emit(`{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"I should call it"}]}}`)
	emit(`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"mcp__claude_bridge__` + name + `","input":` + input + `}]}}`)
	params, _ := json.Marshal(map[string]any{"name": name, "arguments": json.RawMessage(input)})
	var res struct {
		Content []struct{ Type, Text string } `json:"content"`
		IsError bool                          `json:"isError"`
	}
	_ = json.Unmarshal(b.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":`+string(params)+`}`), &res)
	text := ""
	if len(res.Content) > 0 {
		text = res.Content[0].Text
	}
	tr, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []map[string]any{
		{"type": "tool_result", "tool_use_id": "toolu_1", "content": []map[string]string{{"type": "text", "text": text}}, "is_error": res.IsError}}}})
	emit(string(tr))
	emit(`{"type":"assistant","message":{"content":[{"type":"text","text":"the tool answered"}]}}`)
	result("success", "tool said: "+text)
}
