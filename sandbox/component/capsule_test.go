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

// fakeRegistry is a Registry whose answer is a func field.
type fakeRegistry struct {
	invoke func(ctx context.Context, name string, in ToolInput) (ToolResult, error)
}

func (f fakeRegistry) Invoke(ctx context.Context, name string, in ToolInput) (ToolResult, error) {
	return f.invoke(ctx, name, in)
}

func TestRunCapsule(t *testing.T) {
	rt := newRuntime(t)
	c := compileFixture(t, rt, "capsule", WorldCapsule)
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
	c := compileFixture(t, rt, "capsule", WorldCapsule)
	if _, err := c.RunTool(context.Background(), Env{}, ToolInput{}); !errcode.Is(err, errcode.Internal) {
		t.Fatalf("RunTool on a capsule: got %v, want %s", err, errcode.Internal)
	}
}

// TestRunCapsuleLimits: a script capsule's run is bounded by its
// capabilities.limits and fails with murmur's code and text for a capsule:
// a spin loop at deadline_seconds, a balloon at memory_bytes, and a trap
// as a trap (issue 33).
func TestRunCapsuleLimits(t *testing.T) {
	rt := newRuntime(t)
	const limit = 16 << 20
	tests := []struct {
		fixture string
		env     Env
		kind    sandbox.Kind
		want    string
	}{
		{"capsule_spin", Env{Deadline: time.Second}, sandbox.ErrDeadline,
			"capsule execution exceeded its 1s deadline and was interrupted; raise capabilities.limits.deadline_seconds in murmur.yaml if the capsule legitimately needs longer"},
		// 1 page, then 129, then 257 pages (16,842,752 bytes): refused.
		{"capsule_balloon", Env{Deadline: time.Minute, MemoryLimitBytes: limit}, sandbox.ErrMemory,
			"capsule execution exceeded its configured resource limits: linear memory growth to 16842752 bytes exceeds capabilities.limits.memory_bytes (16777216)"},
		{"capsule_trap", Env{Deadline: time.Minute, MemoryLimitBytes: limit}, sandbox.ErrTrap, "capsule execution trapped: "},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			c := compileFixture(t, rt, tt.fixture, WorldCapsule)
			start := time.Now()
			_, err := c.RunCapsule(context.Background(), tt.env)
			took := time.Since(start)
			if !errcode.Is(err, errcode.RunCapsule) || sandbox.KindOf(err) != tt.kind {
				t.Fatalf("RunCapsule = %v (code %s, kind %q), want %s of kind %q", err, errcode.Code(err), sandbox.KindOf(err), errcode.RunCapsule, tt.kind)
			}
			if got := err.Error(); got != tt.want && !(tt.kind == sandbox.ErrTrap && strings.HasPrefix(got, tt.want)) {
				t.Errorf("message:\n got %q\nwant %q", got, tt.want)
			}
			if tt.kind == sandbox.ErrDeadline && took > 10*time.Second {
				t.Errorf("the spin loop ran %v past its 1s deadline", took)
			}
		})
	}
}
