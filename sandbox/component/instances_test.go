package component

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestCompileHoldsTheInstanceLimit: a component that instantiates more
// core modules than capabilities.limits.instances allows is refused
// (E-RUN-001, the counts and murmur's text named), at the limit it
// compiles, and without the option murmur's default applies.
func TestCompileHoldsTheInstanceLimit(t *testing.T) {
	for _, tt := range []struct {
		fixture string
		world   World
		modules uint64 // core modules it instantiates
	}{
		{"tool", WorldTool, 3},
		{"p1tool", WorldTool, 4}, // a preview-1 adapter besides
		{"hook", WorldHook, 3},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			b, err := Decode(fixture(t, tt.fixture))
			if err != nil {
				t.Fatal(err)
			}
			if got := coreInstantiations(b.c); got != tt.modules {
				t.Fatalf("%s instantiates %d core modules, want %d", tt.fixture, got, tt.modules)
			}
			rt := newRuntime(t)
			for _, limit := range []uint64{0, tt.modules, tt.modules + 1} {
				c, err := Compile(context.Background(), rt, b, tt.world, WithInstances(limit))
				if err != nil {
					t.Fatalf("limit %d: %v", limit, err)
				}
				_ = c.Close(context.Background())
			}
			_, err = Compile(context.Background(), rt, b, tt.world, WithInstances(tt.modules-1))
			if errcode.Code(err) != errcode.RunCapsule {
				t.Fatalf("limit %d: got %v, want %s", tt.modules-1, err, errcode.RunCapsule)
			}
			for _, want := range []string{"instantiates " + strconv.FormatUint(tt.modules, 10) + " core modules",
				"capabilities.limits.instances allows " + strconv.FormatUint(tt.modules-1, 10),
				"instance count too high at " + strconv.FormatUint(tt.modules, 10)} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
		})
	}
}
