package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// TestTerminalOutputEscapesControlCharacters is issue 13's lower finding
// through the real binary: a dataset's case id holding a clear-screen
// sequence, a carriage return and a bidi override reaches stdout and
// stderr (progress lines, the summary's failed list, show) only escaped,
// and show --json still decodes to the id itself.
func TestTerminalOutputEscapesControlCharacters(t *testing.T) {
	const hostile = "evil\x1b[2J\rpassed\u202egnp"
	dir := quickstart(t)
	t.Parallel()
	lines := []map[string]any{
		{"case_id": hostile, "task": "what does max_turns limit?", "expected": map[string]any{"result_contains": "not in the answer"}},
		{"case_id": "direct-answer", "task": "what does max_turns limit?", "expected": map[string]any{"result_contains": "turns"}},
	}
	var ds strings.Builder
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		ds.Write(append(b, '\n'))
	}
	if err := os.WriteFile(filepath.Join(dir, "cases.jsonl"), []byte(ds.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := os.ReadFile(filepath.Join(dir, "recordings", "direct-answer.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(hostile))
	if err := os.WriteFile(filepath.Join(dir, "recordings", "sha256-"+hex.EncodeToString(sum[:])+".jsonl"), rec, 0o644); err != nil {
		t.Fatal(err)
	}

	out, res := newFixture(t, dir).run("--progress", "plain")
	check := func(what, s string) {
		t.Helper()
		for _, r := range s {
			if r != '\n' && r != '\t' && (unicode.IsControl(r) || r >= 0x202a && r <= 0x202e) {
				t.Errorf("%s holds %U:\n%q", what, r, s)
				return
			}
		}
	}
	check("run stdout", res.stdout)
	check("run stderr", res.stderr)
	if escaped := `evil\u001b[2J\rpassed\u202egnp`; !strings.Contains(res.stderr, escaped) || !strings.Contains(res.stdout, escaped) {
		t.Errorf("the escaped id is missing from the progress lines or the summary\nstdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
	}

	show := runBinary(t, "show", out)
	check("show", show.stdout)
	js := runBinary(t, "show", out, "--json")
	check("show --json", js.stdout)
	if !strings.Contains(js.stdout, `\u001b`) {
		t.Errorf("show --json lacks the escaped id:\n%s", js.stdout)
	}
	var v any
	if err := json.Unmarshal([]byte(js.stdout), &v); err != nil {
		t.Errorf("show --json is not JSON any more: %v", err)
	}
	if !strings.Contains(mustJSONStrings(v), hostile) {
		t.Errorf("show --json does not decode to the id %q", hostile)
	}
}

// mustJSONStrings joins every string in a decoded JSON value.
func mustJSONStrings(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x + "\x00")
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}

// TestErrorsAreEscaped: an error naming an input with control characters
// (here a dataset path) is printed escaped on stderr.
func TestErrorsAreEscaped(t *testing.T) {
	var stdout, stderr strings.Builder
	path := filepath.Join(t.TempDir(), "x\x1b[2J\r\u202e", "cases.jsonl")
	code := run(t.Context(), []string{t.TempDir(), "--dataset", path}, map[string]string{}, &stdout, &stderr)
	if code != exitUsage {
		t.Fatalf("exit %d, want %d:\n%s", code, exitUsage, stderr.String())
	}
	if s := stderr.String(); strings.ContainsAny(s, "\x1b\r\u202e") || !strings.Contains(s, `x\u001b[2J\r\u202e`) {
		t.Errorf("stderr not escaped: %q", s)
	}
}
