package component

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// fakeRegistry is a Registry whose answer is a func field.
type fakeRegistry struct {
	invoke func(ctx context.Context, name string, in ToolInput) (ToolResult, error)
}

func (f fakeRegistry) Invoke(ctx context.Context, name string, in ToolInput) (ToolResult, error) {
	return f.invoke(ctx, name, in)
}

func TestRunCapsule(t *testing.T) {
	rt := newRuntime(t)
	c := compileFixture(t, rt, "capsule", "capsule", WorldCapsule)
	tests := []struct {
		name string
		reg  Registry
		want string
	}{
		{"tool result", fakeRegistry{func(ctx context.Context, name string, in ToolInput) (ToolResult, error) {
			if name != "echo" || in.Data == nil || in.LogPath != nil {
				return ToolResult{}, errors.New("unexpected call")
			}
			return ToolResult{Status: "passed", Summary: str("ok"), Data: str("echo: " + *in.Data),
				Metadata: [][2]string{{"state_effect", "read"}}}, nil
		}}, "echo: hi"},
		{"registry error", fakeRegistry{func(ctx context.Context, name string, in ToolInput) (ToolResult, error) {
			return ToolResult{}, errors.New("tool '" + name + "' is not declared in manifest allowlist")
		}}, "tool 'echo' is not declared in manifest allowlist"},
		{"no registry", nil, string(errNoRegistry)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			out, err := c.RunCapsule(context.Background(), Env{Root: root, Registry: tt.reg})
			if err != nil {
				t.Fatal(err)
			}
			if string(out.Stdout) != tt.want {
				t.Errorf("got stdout %q, want %q", out.Stdout, tt.want)
			}
			got, err := os.ReadFile(filepath.Join(dir, "result.txt"))
			if err != nil || string(got) != tt.want {
				t.Errorf("got result.txt %q (%v), want %q", got, err, tt.want)
			}
		})
	}
}

func TestRunCapsuleOnTool(t *testing.T) {
	rt := newRuntime(t)
	c := compileFixture(t, rt, "capsule", "capsule", WorldCapsule)
	if _, err := c.RunTool(context.Background(), Env{}, ToolInput{}); !errcode.Is(err, errcode.Internal) {
		t.Fatalf("RunTool on a capsule: got %v, want %s", err, errcode.Internal)
	}
}
