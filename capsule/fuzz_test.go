package capsule

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Every fuzz target checks that a reader never panics and that every error it
// returns carries a code.

func FuzzParseManifest(f *testing.F) {
	for _, seed := range []string{
		"",
		"name: demo\nversion: 1.10\n",
		"name: d\nversion: '1'\nartifacts:\n  - {name: a, version: 1.0.0, runtime: skill, source: ./a}\n",
		"name: d\nversion: '1'\ninference:\n  endpoint: https://e\n  model: m\n  api_key: ${K}\n  driver: {artifact: d, config: {a: [1, {b: ~}]}}\n",
		"name: d\nversion: '1'\ncapabilities: {containment: sealed, shell: {allow: [bash]}, limits: {memory_bytes: 0x10}}\n",
		"a: &x [*x]\n",
		"name: &n d\nversion: *n\ninference: {transport: process, command: *n}\n",
		"name: d\nversion: '1'\ninference: {transport: process, command: c, compaction: {threshold: 0.5, system_prompt: x}}\n",
		"name: d\nversion: '1'\ncapabilities: {shell: {allow: [py], interpreter_runtime: [{binary: py, dirs: [{path: /l, list_dir: true}]}], staged_runtime: [{binary: py, source_path: /s, pin: p}]}}\n",
		"name: d\nversion: '1'\nartifacts: [{name: h, version: '1', runtime: hook, on_overflow: block, capabilities: {network: {allow: []}, resources: {cgroup_cpu_percent: 5}}}]\n",
		"name: d\nversion: '1'\nlifecycle: {task_acceptance: queue, queue_depth: 3}\nnetwork: {internal_port: 80}\ntrace: {include_tool_output: true}\ncontext: {max_tokens: 9}\n",
		"name: d\nversion: '1'\nobservability: {otel_endpoint: x, eval: {dataset_id: s, scorers: [{type: max_turns, max: 3}, {type: tool_sequence, expected: [a]}, {type: z}]}}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest("murmur.yaml", data, envOf(map[string]string{"K": "v"}))
		if err != nil {
			if errcode.Code(err) == "" {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		if strings.TrimSpace(m.Name) == "" || strings.TrimSpace(m.Version) == "" {
			t.Fatalf("accepted a blank name or version: %+v", m)
		}
		for _, a := range m.Artifacts {
			if !filepath.IsLocal(a.Name) || strings.ContainsAny(a.Name, `/\`) {
				t.Fatalf("accepted artifact name %q, not one path element", a.Name)
			}
		}
		if m.Inference != nil && m.Inference.MaxTurns == 0 {
			t.Fatalf("accepted max_turns 0")
		}
		if c := m.Inference; c != nil && c.Compaction != nil && !(c.Compaction.Threshold > 0 && c.Compaction.Threshold <= 1) {
			t.Fatalf("accepted compaction threshold %v", c.Compaction.Threshold)
		}
		if m.Observability.Eval != nil {
			_ = m.Observability.Eval.JSON()
		}
	})
}

func FuzzReadLock(f *testing.F) {
	for _, seed := range []string{
		"",
		"lock_version: 1\nartifacts: []\n",
		"lock_version: 1\nartifacts:\n  - {name: a, resolved_version: 1.0, sha256: {wasm: abc}}\n",
		"lock_version: 18446744073709551616\nartifacts: ~\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseLock("murmur.lock", data)
		if err != nil {
			if errcode.Code(err) == "" {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		for _, e := range l.Artifacts {
			if strings.TrimSpace(e.Name) == "" || strings.TrimSpace(e.SHA256) == "" {
				t.Fatalf("accepted an invalid entry: %+v", e)
			}
		}
	})
}

func FuzzReadArchive(f *testing.F) {
	f.Add([]byte("not a zip"))
	f.Add(makeZip(f, zipEntry{"murmur.yaml", toolYAML}, zipEntry{"capsule.wasm", "C"}))
	f.Add(makeZip(f, zipEntry{"murmur.yaml", toolYAML + "implementation: native\n"}, zipEntry{"bin/echo", "E"}))
	f.Add(makeZip(f, zipEntry{"murmur.yaml", "name: s\nversion: '1'\nruntime: skill\n"}, zipEntry{"skill.md", "S"}))
	f.Add(makeZip(f, zipEntry{"murmur.yaml", toolYAML}, zipEntry{"../x.wasm", "X"}))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ReadArchive("echo", "1.0.0", data, 1<<16)
		if err != nil {
			if errcode.Code(err) == "" {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		if a.Manifest == nil || a.PayloadEntry == "" || int64(len(a.Payload)) > 1<<16 {
			t.Fatalf("incomplete archive: %+v", a)
		}
	})
}
