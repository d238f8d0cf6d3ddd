package component

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

func str(s string) *string { return &s }

func TestRunTool(t *testing.T) {
	rt := newRuntime(t)
	c := compileFixture(t, rt, "tool", WorldTool)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in.txt"), []byte("inside"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	tests := []struct {
		name, input   string
		status, data  string
		stdout, chunk string
		kind          sandbox.Kind
	}{
		{name: "echo", input: "ehello", status: "passed", data: "hello"},
		{name: "stdout", input: "oout", status: "passed", stdout: "out"},
		{name: "chunk", input: "cpiece", status: "passed", chunk: "piece"},
		{name: "read file", input: "fin.txt", status: "passed", data: "inside"},
		{name: "dotdot escape", input: "f../secret.txt", status: "failed", data: string(rune('A' + ecNotPermitted))},
		{name: "absolute path", input: "f" + outside, status: "failed", data: string(rune('A' + ecNotPermitted))},
		{name: "symlink escape", input: "flink", status: "failed", data: string(rune('A' + ecNotPermitted))},
		{name: "missing file", input: "fnope", status: "failed", data: string(rune('A' + ecNoEntry))},
		{name: "bad utf-8", input: "u", kind: sandbox.ErrTrap},
		{name: "bad tag", input: "t", kind: sandbox.ErrTrap},
		{name: "result out of bounds", input: "p", kind: sandbox.ErrTrap},
		{name: "bad realloc", input: "e123456789012", kind: sandbox.ErrTrap},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := c.RunTool(context.Background(), Env{Name: "fixture", Root: root}, ToolInput{Data: str(tt.input)})
			if tt.kind != "" {
				if !errcode.Is(err, errcode.RunCapsule) || sandbox.KindOf(err) != tt.kind {
					t.Fatalf("got error %v (kind %q), want E-RUN-001 %q", err, sandbox.KindOf(err), tt.kind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if r.Data != nil {
				got = *r.Data
			}
			if r.Status != tt.status || got != tt.data {
				t.Errorf("got status %s data %q, want %s %q", r.Status, got, tt.status, tt.data)
			}
			if string(r.Stdout) != tt.stdout {
				t.Errorf("got stdout %q, want %q", r.Stdout, tt.stdout)
			}
			if tt.chunk != "" && (len(r.Chunks) != 1 || r.Chunks[0].Text != tt.chunk) {
				t.Errorf("got chunks %v, want %q", r.Chunks, tt.chunk)
			}
		})
	}
}

func TestRunToolLimits(t *testing.T) {
	rt := newRuntime(t)
	c := compileFixture(t, rt, "tool", WorldTool)
	start := time.Now()
	_, err := c.RunTool(context.Background(), Env{Name: "echo", Deadline: 200 * time.Millisecond}, ToolInput{Data: str("s")})
	if !errcode.Is(err, errcode.RunCapsule) || !errors.Is(err, sandbox.ErrDeadline) {
		t.Fatalf("spin: got %v, want E-RUN-001 deadline", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("spin stopped after %v", d)
	}
	// murmur's text for a tool, as a preview-1 tool's (sandbox's conformance test).
	if got, want := err.Error(), "tool 'echo' exceeded its 0.2s execution deadline (capabilities.limits.deadline_seconds) and was interrupted"; got != want {
		t.Errorf("spin: message %q, want %q", got, want)
	}
	_, err = c.RunTool(context.Background(), Env{Name: "echo", MemoryLimitBytes: 4 << 20}, ToolInput{Data: str("m")})
	if !errcode.Is(err, errcode.RunCapsule) || !errors.Is(err, sandbox.ErrMemory) {
		t.Fatalf("balloon: got %v, want E-RUN-001 memory limit", err)
	}
	if got := err.Error(); !regexp.MustCompile(`^tool 'echo' exceeded its configured resource limits: linear memory growth to [0-9]+ bytes exceeds capabilities\.limits\.memory_bytes \(4194304\)$`).MatchString(got) {
		t.Errorf("balloon: message %q, want murmur's", got)
	}
}

func TestRunToolConcurrent(t *testing.T) {
	rt := newRuntime(t)
	c := compileFixture(t, rt, "tool", WorldTool)
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func() {
			r, err := c.RunTool(context.Background(), Env{}, ToolInput{Data: str("ehi")})
			if err == nil && (r.Data == nil || *r.Data != "hi") {
				err = errors.New("wrong result")
			}
			errs <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestRunToolOpensRootLazily: with Env.OpenRoot, the preopen is opened only
// when the guest asks for it, once, and closed when the call ends; an error
// opening it is the host's I/O error, not the guest's trap.
func TestRunToolOpensRootLazily(t *testing.T) {
	c := compileFixture(t, newRuntime(t), "tool", WorldTool)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in.txt"), []byte("inside"), 0o644); err != nil {
		t.Fatal(err)
	}
	var opened []*os.Root
	open := func() (*os.Root, error) {
		r, err := os.OpenRoot(dir)
		opened = append(opened, r)
		return r, err
	}
	tests := []struct {
		input, data string
		opens       int
	}{
		{input: "ehello", data: "hello", opens: 0},
		{input: "fin.txt", data: "inside", opens: 1},
	}
	for _, tt := range tests {
		opened = nil
		r, err := c.RunTool(context.Background(), Env{Name: "lazy", OpenRoot: open}, ToolInput{Data: str(tt.input)})
		if err != nil || r.Data == nil || *r.Data != tt.data {
			t.Fatalf("%s: got %v, %v, want %q", tt.input, r.Data, err, tt.data)
		}
		if len(opened) != tt.opens {
			t.Errorf("%s: opened the root %d times, want %d", tt.input, len(opened), tt.opens)
		}
		for _, root := range opened {
			if _, err := root.Stat("."); err == nil {
				t.Errorf("%s: the root is still open after the call", tt.input)
			}
		}
	}
	_, err := c.RunTool(context.Background(), Env{Name: "lazy", OpenRoot: func() (*os.Root, error) {
		return nil, errors.New("gone")
	}}, ToolInput{Data: str("fin.txt")})
	if !errcode.Is(err, errcode.IO) || sandbox.KindOf(err) == sandbox.ErrTrap {
		t.Fatalf("got %v (kind %q), want E-IO-003, not a trap", err, sandbox.KindOf(err))
	}
}
