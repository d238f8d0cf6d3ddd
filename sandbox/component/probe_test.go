package component

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// probeDir is the preopen the probe tests use: a.txt (5 bytes), sub/ with
// two files, and a symlink leading out.
func probeDir(t testing.TB) string {
	dir := t.TempDir()
	for name, body := range map[string]string{"a.txt": "hello", "sub/x": "1", "sub/y": "22"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestProbe(t *testing.T) {
	rt := newRuntime(t)
	c := compileFixture(t, rt, "probe", WorldTool)
	root, err := os.OpenRoot(probeDir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	env := Env{Name: "probe", Root: root, Env: []string{"GREETING=hi", "B=2"}, Args: []string{"probe", "x"}}
	letter := func(ec int) string { return string(rune('A' + ec)) }
	tests := []struct {
		input, status, data string
	}{
		{"v", "passed", "GREETING=hi"},
		{"a", "passed", "probe"},
		{"w", "passed", ""},
		{"z", "passed", ""},
		{"k", "passed", ""},
		{"r", "passed", ""},
		{"sa.txt", "passed", letter(6) + "5"},
		{"snope", "failed", letter(ecNoEntry)},
		{"s../etc", "failed", letter(ecNotPermitted)},
		{"hsub/y", "passed", ""},
		{"t", "passed", letter(3)},
		{"dsub", "passed", "x,y,"},
		{"dout", "failed", letter(ecNotPermitted)},
		{"Eoops", "passed", ""},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			r, err := c.RunTool(context.Background(), env, ToolInput{Data: str(tt.input)})
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if r.Data != nil {
				got = *r.Data
			}
			if r.Status != tt.status || got != tt.data {
				t.Errorf("got %s %q, want %s %q", r.Status, got, tt.status, tt.data)
			}
			if tt.input == "Eoops" && string(r.Stderr) != "oops" {
				t.Errorf("got stderr %q, want oops", r.Stderr)
			}
		})
	}
}

func TestProbeTraps(t *testing.T) {
	rt := newRuntime(t)
	c := compileFixture(t, rt, "probe", WorldTool)
	for _, tt := range []struct{ input, text string }{
		{"iname?", "request-input is not available outside an A2A task context"},
		{"x", "wasi:cli/exit.exit with status 1"},
	} {
		_, err := c.RunTool(context.Background(), Env{}, ToolInput{Data: str(tt.input)})
		if !errcode.Is(err, errcode.RunCapsule) || !errors.Is(err, sandbox.ErrTrap) || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("%s: got %v, want E-RUN-001 trap saying %q", tt.input, err, tt.text)
		}
	}
}

// TestBlockedHostCallDeadline: a guest blocked in pollable.block (host
// code, where wazero cannot interrupt it) still stops at its deadline.
func TestBlockedHostCallDeadline(t *testing.T) {
	rt := newRuntime(t)
	c := compileFixture(t, rt, "probe", WorldTool)
	start := time.Now()
	_, err := c.RunTool(context.Background(), Env{Deadline: 100 * time.Millisecond}, ToolInput{Data: str("Z")})
	if !errcode.Is(err, errcode.RunCapsule) || !errors.Is(err, sandbox.ErrDeadline) {
		t.Fatalf("got %v, want E-RUN-001 deadline", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("stopped after %v", d)
	}
	// The caller's own context ending is not the tool's deadline.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = c.RunTool(ctx, Env{}, ToolInput{Data: str("Z")})
	if !errcode.Is(err, errcode.Timeout) {
		t.Fatalf("got %v, want %s", err, errcode.Timeout)
	}
}
