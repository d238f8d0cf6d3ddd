package component

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestAdapterShape runs a preview-1 tool wrapped with the
// wasi_snapshot_preview1 reactor adapter (jco new --wasi-reactor).
func TestAdapterShape(t *testing.T) {
	rt := newRuntime(t)
	c := compileFixture(t, rt, "p1tool", WorldTool)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("from a file"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	env := Env{Root: root, Env: []string{"K=v"}}
	for _, tt := range []struct{ input, status, data, stdout string }{
		{"ehello", "passed", "hello", "hello"},
		{"v", "passed", "K=v", ""},
		{"fa.txt", "passed", "from a file", ""},
		{"fnope", "failed", string(rune('0' + 44)), ""},  // ENOENT
		{"f../x", "failed", string(rune('0' + 63)), ""},  // EPERM (not-permitted)
		{"fout/x", "failed", string(rune('0' + 63)), ""}, // a symlink out of the preopen
	} {
		t.Run(tt.input, func(t *testing.T) {
			r, err := c.RunTool(context.Background(), env, ToolInput{Data: str(tt.input)})
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if r.Data != nil {
				got = *r.Data
			}
			if r.Status != tt.status || got != tt.data || string(r.Stdout) != tt.stdout {
				t.Errorf("got %s %q stdout %q, want %s %q stdout %q", r.Status, got, r.Stdout, tt.status, tt.data, tt.stdout)
			}
		})
	}
}
