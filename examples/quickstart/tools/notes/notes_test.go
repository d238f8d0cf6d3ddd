package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestCleanPath(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" when the path must be rejected
	}{
		{"todo.md", "todo.md"},
		{"shopping/list.md", "shopping/list.md"},
		{"./a.md", "a.md"},
		{"a//b.md", "a/b.md"},
		{"a/./b.md", "a/b.md"},
		{"dots..md", "dots..md"},
		{"..hidden", "..hidden"},
		{"", ""},
		{"  ", ""},
		{".", ""},
		{"./", ""},
		{"..", ""},
		{"../escape.txt", ""},
		{"a/../../escape.txt", ""},
		{"a/../b.md", ""},
		{"a/..", ""},
		{"/etc/passwd", ""},
		{"/notes/a.md", ""},
		{`a\..\b.md`, ""},
		{"a\x00.md", ""},
	}
	for _, tt := range tests {
		got, err := cleanPath(tt.in)
		if tt.want == "" && err == nil {
			t.Errorf("cleanPath(%q) = %q, nil; want an error", tt.in, got)
		}
		if tt.want != "" && (err != nil || got != tt.want) {
			t.Errorf("cleanPath(%q) = %q, %v; want %q, nil", tt.in, got, err, tt.want)
		}
	}
}

// call runs serve with the model input req (marshalled to the data string).
func call(t *testing.T, dir string, req map[string]any) toolResult {
	t.Helper()
	data, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := json.Marshal(map[string]any{"data": string(data), "log_path": nil})
	if err != nil {
		t.Fatal(err)
	}
	return serve(stdin, dir)
}

func TestServe(t *testing.T) {
	session := t.TempDir()
	dir := filepath.Join(session, "notes")
	outside := filepath.Join(session, "secret.txt")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name       string
		req        map[string]any
		wantStatus string
		wantData   string // checked when not ""
	}{
		{"list before any write", map[string]any{"action": "list"}, "passed", "no notes yet"},
		{"read before any write", map[string]any{"action": "read", "path": "a.md"}, "failed", ""},
		{"write", map[string]any{"action": "write", "path": "shopping.md", "content": "- milk\n- eggs\n"}, "passed", "wrote 14 bytes to notes/shopping.md"},
		{"read back", map[string]any{"action": "read", "path": "shopping.md"}, "passed", "- milk\n- eggs\n"},
		{"write nested", map[string]any{"action": "write", "path": "work/todo.md", "content": ""}, "passed", "wrote 0 bytes to notes/work/todo.md"},
		{"list", map[string]any{"action": "list"}, "passed", "shopping.md\nwork/todo.md"},
		{"read missing", map[string]any{"action": "read", "path": "nope.md"}, "failed", ""},
		{"read a folder", map[string]any{"action": "read", "path": "work"}, "failed", ""},
		{"write escaping", map[string]any{"action": "write", "path": "../secret.txt", "content": "x"}, "failed", ""},
		{"read absolute", map[string]any{"action": "read", "path": "/secret.txt"}, "failed", ""},
		{"write without content", map[string]any{"action": "write", "path": "b.md"}, "failed", ""},
		{"unknown action", map[string]any{"action": "delete", "path": "shopping.md"}, "failed", ""},
	}
	for _, s := range steps {
		got := call(t, dir, s.req)
		if got.Status != s.wantStatus || (s.wantData != "" && got.Data != s.wantData) {
			t.Errorf("%s: serve() = %+v, want status %q data %q", s.name, got, s.wantStatus, s.wantData)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "secret" {
		t.Errorf("file outside notes/ changed to %q", b)
	}
}

func TestServeRefusesSymlinkEscape(t *testing.T) {
	session := t.TempDir()
	dir := filepath.Join(session, "notes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(session, "secret.txt"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../secret.txt", filepath.Join(dir, "link.md")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if got := call(t, dir, map[string]any{"action": "read", "path": "link.md"}); got.Status == "passed" {
		t.Errorf("read through an escaping symlink = %+v, want it refused", got)
	}
}

func TestServeBadInput(t *testing.T) {
	for _, tt := range []struct{ stdin, want string }{
		{`not json`, "error"},
		{`{"data": null}`, "failed"},
		{`{"data": "[1]"}`, "failed"},
	} {
		if got := serve([]byte(tt.stdin), t.TempDir()); got.Status != tt.want {
			t.Errorf("serve(%q) = %+v, want status %q", tt.stdin, got, tt.want)
		}
	}
}
