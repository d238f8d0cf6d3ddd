package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rtKey is the inference key of the escapekey capsule's tests: a value no
// name pattern can catch, under a name (RT_KEY) no pattern matches.
const rtKey = "rt-key-5f0c9a1e7b3d"

// hostFile writes text to a file outside any session, the target the
// escape tests plant links to, and returns its path.
func hostFile(t *testing.T, text string) string {
	t.Helper()
	host := filepath.Join(t.TempDir(), "hostfile")
	if err := os.WriteFile(host, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return host
}

// escapekeyWithEnv is a copy of the escapekey capsule with its envdump
// tool installed and ${RT_KEY} in its .env, for the tests that run in
// parallel (they cannot set RT_KEY in this process's environment).
func escapekeyWithEnv(t *testing.T) string {
	t.Helper()
	dir := copyCapsule(t, "cmd/murmur-eval/testdata/escapekey")
	installTool(t, dir, "envdump", "./cmd/murmur-eval/testdata/escapekey/tools/envdump")
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("RT_KEY="+rtKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestToolsNeverGetTheAPIKey is the key-by-value finding of issue 33
// through the real binary: murmur.yaml resolves inference.api_key from
// ${RT_KEY}, and env.allow and shell.baseline_env list RT_KEY, RT_URL
// (a URL carrying the key) and RT_PLAIN. A WASM tool and a shell tool
// print their whole environment: RT_PLAIN reaches both, the key under
// either name reaches neither, the key's bytes are nowhere in the run
// folder, and the session's bootstrap log names the variables left out.
// (Not parallel: the binary takes RT_KEY from this process's environment.)
func TestToolsNeverGetTheAPIKey(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	e2eBinary(t)
	t.Setenv("RT_KEY", rtKey)
	t.Setenv("RT_URL", "https://proxy.example/v1?key="+rtKey)
	t.Setenv("RT_PLAIN", "plain-7c1")
	dir := copyCapsule(t, "cmd/murmur-eval/testdata/escapekey")
	installTool(t, dir, "envdump", "./cmd/murmur-eval/testdata/escapekey/tools/envdump")
	cases := []scripted{
		{id: "wasm", calls: []toolUse{{"envdump", map[string]any{}}}},
		{id: "shell", calls: bash("export -p")},
	}
	writeScripted(t, dir, cases)

	out, r := newFixture(t, dir).run("--workers", "2", "--timeout", "60s", "--progress", "none")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", r.code, r.stderr)
	}
	byCase := resultsByCase(t, out)
	for _, c := range cases {
		row := byCase[c.id]
		if row["status"] != "passed" {
			t.Errorf("case %s: status %v (%v)", c.id, row["status"], row["error_message"])
			continue
		}
		sdir := filepath.Join(out, filepath.FromSlash(fmt.Sprint(row["session_dir"])))
		calls := toolCalls(t, filepath.Join(sdir, "trace.jsonl"))
		if len(calls) != 1 {
			t.Fatalf("case %s: %d tool calls, want 1", c.id, len(calls))
		}
		got := fmt.Sprint(calls[0]["output"])
		if !strings.Contains(got, "plain-7c1") {
			t.Errorf("case %s: RT_PLAIN not in the tool's environment, so the test shows nothing:\n%s", c.id, got)
		}
		if strings.Contains(got, rtKey) || strings.Contains(got, "RT_KEY") || strings.Contains(got, "RT_URL") {
			t.Errorf("case %s: the tool's environment holds the API key:\n%s", c.id, got)
		}
		log, _ := os.ReadFile(filepath.Join(sdir, "logs", "bootstrap.log"))
		for _, name := range []string{"RT_KEY", "RT_URL"} {
			if !bytes.Contains(log, []byte(name+" left out of the tools' environment")) {
				t.Errorf("case %s: logs/bootstrap.log does not say %s was left out:\n%s", c.id, name, log)
			}
		}
	}
	// Nothing murmur-eval wrote (trace, logs, Parquet, journal) holds it.
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(rtKey)) {
			t.Errorf("%s holds the API key", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
