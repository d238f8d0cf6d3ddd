package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// okWasm is the minimal tool, assembled from tool/ok.wat.
//
//go:embed tool/ok.wasm
var okWasm []byte

const toolManifest = `name: ok
version: 0.1.0
runtime: tool
description: Answers ok.
input_schema:
  type: object
  properties:
    q: {type: string}
requires_files: [ok.wasm]
`

// capsuleManifest is the bench capsule's murmur.yaml: one WASM tool and,
// for the latency suite, an OpenAI-compatible endpoint (the replay suites
// never reach it), which network.allow covers, as murmur requires.
const capsuleManifest = `name: bench
version: 0.1.0
artifacts:
  - name: ok
    runtime: tool
    version: 0.1.0
inference:
  transport: http
  endpoint: %[1]s
  model: bench-model
  driver:
    artifact: murmur-driver-openai
    config: {api: openai}
  max_turns: 8
  system_prompt: Use the ok tool.
capabilities:
  network:
    allow: ["%[1]s"]
  limits:
    memory_bytes: 16777216
    deadline_seconds: 10
observability:
  eval:
    dataset_id: bench
    scorers:
      - type: exit_ok
`

// makeCapsule writes a capsule with the ok tool packed into its project
// store (by the binary under test, as `mur build` + `mur install` would).
func (h *harness) makeCapsule(dir, endpoint string) error {
	tool := filepath.Join(dir, "tools", "ok")
	if err := os.MkdirAll(tool, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tool, "ok.wasm"), okWasm, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tool, "murmur.yaml"), []byte(toolManifest), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(fmt.Sprintf(capsuleManifest, endpoint)), 0o644); err != nil {
		return err
	}
	out, err := h.command("pack", tool, "--store", filepath.Join(dir, ".murmur", "artifacts")).CombinedOutput()
	if err != nil {
		return fmt.Errorf("murmur-eval pack: %v: %s", err, out)
	}
	return nil
}

// makeDataset writes n cases with inline tasks, each expecting "done".
func makeDataset(path string, n int) error {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"case_id":"c%06d","task":"Call ok once, then say done.","expected":{"result_contains":"done"}}`+"\n", i)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// makeRecordings writes, for each of n cases, two recorded model turns:
// a call of the ok tool, then the final answer.
func makeRecordings(dir string, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	call, _ := json.Marshal(map[string]any{"stop_reason": "tool_call", "content": []any{map[string]any{
		"type": "tool_call", "id": "call_1", "name": "ok", "input": map[string]string{"q": "x"}}},
		"usage": map[string]int{"input_tokens": 100, "output_tokens": 10}})
	end, _ := json.Marshal(map[string]any{"stop_reason": "end_turn", "content": []any{map[string]any{
		"type": "text", "text": "done"}}, "usage": map[string]int{"input_tokens": 120, "output_tokens": 5}})
	body := append(append(append(call, '\n'), end...), '\n')
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("c%06d.jsonl", i)), body, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// builtinDriverFlags are the flags of the suites that reach the model server:
// the bench capsule installs no driver component, so they measure
// murmur-eval's built-in provider, and say so (without it murmur-eval
// refuses the capsule, as mur eval run would: E-RUN-006).
func builtinDriverFlags() []string { return []string{"--driver", "builtin"} }
