package replay

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
)

func TestFileName(t *testing.T) {
	tests := []struct{ id, want string }{
		{"add-1", "add-1.jsonl"},
		{"A.b_c-9", "A.b_c-9.jsonl"},
		// As `printf %s 'notes/round trip' | sha256sum` prints it.
		{"notes/round trip", "sha256-c52783fb81e32bfddc7c83c0535e74e3978d6f96bc15d382c4ee8c4142d9e891.jsonl"},
		{"..", "sha256-" + sha("..") + ".jsonl"},
		{".", "sha256-" + sha(".") + ".jsonl"},
		{"日本", "sha256-" + sha("日本") + ".jsonl"},
		{"", "sha256-" + sha("") + ".jsonl"},
		// A safe id is its name up to NAME_MAX with ".jsonl"; a longer one
		// could not be written ("file name too long") and is hashed.
		{strings.Repeat("a", 249), strings.Repeat("a", 249) + ".jsonl"},
		{strings.Repeat("a", 250), "sha256-" + sha(strings.Repeat("a", 250)) + ".jsonl"},
	}
	for _, tt := range tests {
		if got := FileName(tt.id); got != tt.want {
			t.Errorf("FileName(%q) = %q, want %q", tt.id, got, tt.want)
		}
	}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestReplayServesTurnsThenRunsOut(t *testing.T) {
	dir := t.TempDir()
	rec := `{"stop_reason":"tool_call","content":[{"type":"tool_call","id":"1","name":"calc","input":{}}]}

{"stop_reason":"end_turn","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":3,"output_tokens":1}}
`
	if err := os.WriteFile(filepath.Join(dir, "c1.jsonl"), []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := src.ForCase(ctx, inference.Case{ID: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"tool_call", "end_turn"} {
		r, err := p.Complete(ctx, nil, inference.NopObserver{})
		if err != nil || r.StopReason != want {
			t.Fatalf("turn %d: %v, %v; want %s", i, r, err, want)
		}
	}
	if _, err := p.Complete(ctx, nil, inference.NopObserver{}); !errcode.Is(err, errcode.ReplayExhausted) {
		t.Errorf("third turn: %v, want E-EVL-011", err)
	}
	if _, err := src.ForCase(ctx, inference.Case{ID: "nope"}); !errcode.Is(err, errcode.ReplayMissing) {
		t.Errorf("missing recording: %v, want E-EVL-010", err)
	}
}

func TestParseNamesTheBadLine(t *testing.T) {
	_, err := Parse("r.jsonl", []byte("{\"stop_reason\":\"end_turn\"}\n\n{\"content\":[]}\n"))
	var e *errcode.Error
	if !errcode.Is(err, errcode.ReplayInvalid) {
		t.Fatalf("err = %v, want E-EVL-012", err)
	}
	if e = err.(*errcode.Error); e.Where != "r.jsonl:3" {
		t.Errorf("Where = %q, want r.jsonl:3", e.Where)
	}
}

func TestOpenRefusesMissingDir(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "none")); !errcode.Is(err, errcode.IONotFound) {
		t.Errorf("Open = %v, want E-IO-001", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("{\"stop_reason\":\"end_turn\"}\n"))
	f.Add([]byte(`{"stop_reason":"end_turn","request_sha256":"ab"}` + "\n" + `{"stop_reason":"end_turn","request_sha256":1}`))
	f.Add([]byte("\r\n{\"stop_reason\":\"tool_call\",\"content\":[{\"type\":\"tool_call\",\"id\":\"a\",\"name\":\"b\"}]}\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		turns, err := Parse("f.jsonl", data)
		if err != nil && errcode.Code(err) == "" {
			t.Fatalf("uncoded error: %v", err)
		}
		for _, turn := range turns {
			if turn.Response == nil {
				t.Fatal("nil turn")
			}
			if !json.Valid(turn.Response.Raw) {
				t.Fatalf("Raw is not JSON: %q", turn.Response.Raw)
			}
		}
	})
}
