// Command guest is the test hook of murmur-eval's hook tests, built with
// GOOS=wasip1 GOARCH=wasm. It speaks the hook ABI of docs/hooks.md: one
// event as JSON on stdin, one hook output as JSON on stdout. What it does
// depends on its name (argv[0], the hook's artifact name), up to the first
// '.', so that one module serves every test hook:
//
//	none          answers none to everything
//	reopen-once   on-task-end: reopen-task unless task.md (it needs scope .)
//	              already carries reopen feedback
//	always-reopen on-task-end: reopen-task, every time
//	bad-arm       answers write-manifests to everything (unsupported but on on-stage)
//	fail          exits 3 after writing to stderr
//	panic         panics (Go's exit status 2)
//	error         answers {"error": "hook says no"}
//	compact       on-compaction: replace-context with one user message
//	compact-err   on-compaction: {"error": "summariser down"}
//	echo-env      appends the event name and its MURMUR_* environment to
//	              events.jsonl in its scope, answers none
//	peek          tries to read task.md and list "/", answers with an error
//	              saying what it saw
//	slow          sleeps 300 ms, then answers none
//	spin          never answers (a busy loop)
//	shell-desc    on-stage: write-manifests describing each shell_allow binary
//	ask-model     on-task-end: asks the model (run_inference) whether to
//	              accept; reopens with its text unless it starts "yes", or
//	              with its error
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

type event struct {
	ABI     int             `json:"abi"`
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
}

func main() {
	name := filepath.Base(os.Args[0])
	if i := strings.IndexByte(name, '.'); i >= 0 {
		name = name[:i]
	}
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(err)
	}
	var ev event
	if err := json.Unmarshal(in, &ev); err != nil {
		fail(err)
	}
	switch name {
	case "none":
		answer(map[string]any{"output": "none"})
	case "reopen-once":
		if ev.Event != "on-task-end" {
			return // empty output is none
		}
		task, err := os.ReadFile("task.md")
		if err != nil {
			answer(map[string]any{"error": err.Error()})
			return
		}
		if strings.Contains(string(task), "# Reopen feedback") {
			answer(map[string]any{"output": "none"})
			return
		}
		answer(map[string]any{"output": "reopen-task", "reason": "  Please also show your working.  "})
	case "always-reopen":
		if ev.Event == "on-task-end" {
			answer(map[string]any{"output": "reopen-task", "reason": "not good enough"})
		}
	case "bad-arm":
		answer(map[string]any{"output": "write-manifests", "manifests": []any{}})
	case "fail":
		fmt.Fprintln(os.Stderr, "hook broke on", ev.Event)
		os.Exit(3)
	case "panic":
		var m map[string]int
		m["x"] = 1 //nolint:staticcheck // SA5000: the test hook panics on purpose
	case "error":
		answer(map[string]any{"error": "hook says no"})
	case "compact":
		if ev.Event == "on-compaction" {
			var p struct {
				Messages []struct{ Role, Content string } `json:"messages"`
			}
			_ = json.Unmarshal(ev.Payload, &p)
			summary := fmt.Sprintf("Summary of %d messages: the user asked for 6*7.", len(p.Messages))
			b, _ := json.Marshal(summary)
			answer(map[string]any{"output": "replace-context", "messages": []any{map[string]string{"role": "user", "content": string(b)}}})
		}
	case "compact-err":
		if ev.Event == "on-compaction" {
			answer(map[string]any{"error": "summariser down"})
		}
	case "echo-env":
		vars := map[string]string{}
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			vars[k] = v
		}
		keys := make([]string, 0, len(vars))
		for k := range vars {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		line, _ := json.Marshal(map[string]any{"event": ev.Event, "abi": ev.ABI, "env": vars, "keys": keys, "payload": ev.Payload})
		f, err := os.OpenFile("events.jsonl", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			answer(map[string]any{"error": err.Error()})
			return
		}
		_, werr := f.Write(append(line, '\n'))
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			answer(map[string]any{"error": werr.Error()})
		}
	case "peek":
		_, rerr := os.ReadFile("task.md")
		_, derr := os.ReadDir("/")
		answer(map[string]any{"error": fmt.Sprintf("read task.md: %v; list /: %v", rerr, derr)})
	case "slow":
		time.Sleep(300 * time.Millisecond)
	case "shell-desc":
		if ev.Event != "on-stage" {
			return
		}
		var p struct {
			ShellAllow []string `json:"shell_allow"`
		}
		_ = json.Unmarshal(ev.Payload, &p)
		ms := []map[string]string{}
		for _, b := range p.ShellAllow {
			ms = append(ms, map[string]string{"binary_name": b, "content": "name: " + b + "\nversion: 0.0.0\nruntime: tool\n" +
				"description: Runs " + b + " (described by a hook)\ninput_schema: {type: object, properties: {command: {type: string}}, required: [command]}\n"})
		}
		answer(map[string]any{"output": "write-manifests", "manifests": ms})
	case "ask-model":
		if ev.Event != "on-task-end" {
			return
		}
		resp := askModel(map[string]any{"messages": []map[string]string{{"role": "user", "content": "Accept the answer?"}},
			"system_prompt": "You are a strict judge."})
		if e, ok := resp["error"].(string); ok {
			answer(map[string]any{"output": "reopen-task", "reason": "judge error: " + e})
			return
		}
		text, _ := resp["text"].(string)
		if !strings.HasPrefix(text, "yes") {
			answer(map[string]any{"output": "reopen-task", "reason": text})
		}
	case "spin":
		for { //nolint:staticcheck // SA5002: the test hook spins on purpose, until its deadline kills it
		}
	default:
		fail(fmt.Errorf("unknown test hook %q", name))
	}
}

func answer(v any) {
	b, _ := json.Marshal(v)
	if _, err := os.Stdout.Write(b); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
