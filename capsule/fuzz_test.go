package capsule

import (
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
		if m.Inference != nil && m.Inference.MaxTurns == 0 {
			t.Fatalf("accepted max_turns 0")
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
