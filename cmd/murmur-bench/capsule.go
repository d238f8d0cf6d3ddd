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
// for the latency suites, an OpenAI-compatible endpoint (the replay suites
// never reach it), which network.allow covers, as murmur requires. Its
// driver (%[2]s) is installed, and declared under artifacts (%[3]s), in
// the capsules of the suites that measure the driver path; config.api
// lets --driver builtin answer for any driver name. The deadline bounds a
// session and measures nothing, but a case past it fails the benchmark:
// 60 s (it was 10), since sessions queue for the CPU at 1,024 workers, and
// the three-turn run there on the driver path took 10 s in all on a
// loaded machine.
const capsuleManifest = `name: bench
version: 0.1.0
artifacts:
  - name: ok
    runtime: tool
    version: 0.1.0
%[3]sinference:
  transport: http
  endpoint: %[1]s
  model: bench-model
  driver:
    artifact: %[2]s
    config: {api: openai}
  max_turns: 8
  system_prompt: Use the ok tool.
capabilities:
  network:
    allow: ["%[1]s"]
  limits:
    memory_bytes: 16777216
    deadline_seconds: 60
observability:
  eval:
    dataset_id: bench
    scorers:
      - type: exit_ok
`

// makeCapsule writes a capsule with the ok tool packed into its project
// store (by the binary under test, as `mur build` + `mur install` would)
// and, when drv is set, drv packed beside it as the capsule's driver.
// Without drv the capsule declares murmur-driver-openai and installs no
// driver, as before the driver path was measured: the replay suites never
// run a driver, and their figures stay comparable.
func (h *harness) makeCapsule(dir, endpoint string, drv *benchDriver) error {
	if err := h.packArtifact(dir, filepath.Join("tools", "ok"), "ok", toolManifest, okWasm); err != nil {
		return err
	}
	if drv != nil {
		if err := h.packArtifact(dir, filepath.Join("drivers", drv.Name), drv.Name, drv.manifest(), drv.wasm); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(capsuleText(endpoint, drv)), 0o644)
}

// capsuleText is the capsule's murmur.yaml: capsuleManifest with drv
// declared, or murmur-driver-openai named and not declared.
func capsuleText(endpoint string, drv *benchDriver) string {
	name, entry := "murmur-driver-openai", ""
	if drv != nil {
		name = drv.Name
		entry = fmt.Sprintf("  - name: %s\n    runtime: driver\n    version: 0.1.0\n", drv.Name)
	}
	return fmt.Sprintf(capsuleManifest, endpoint, name, entry)
}

// packArtifact writes an artifact's source folder, dir/folder (<name>.wasm
// and its murmur.yaml), and packs it into the capsule's store.
func (h *harness) packArtifact(dir, folder, name, manifest string, wasm []byte) error {
	src := filepath.Join(dir, folder)
	if err := os.MkdirAll(src, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(src, name+".wasm"), wasm, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(src, "murmur.yaml"), []byte(manifest), 0o644); err != nil {
		return err
	}
	out, err := h.command("pack", src, "--store", filepath.Join(dir, ".murmur", "artifacts")).CombinedOutput()
	if err != nil {
		return fmt.Errorf("murmur-eval pack %s: %v: %s", name, err, out)
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
