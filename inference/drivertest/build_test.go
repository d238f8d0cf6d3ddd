package drivertest

import (
	"context"
	"testing"

	"github.com/murmur-nexus/murmur-eval/sandbox/component"
	"github.com/tetratelabs/wazero"
)

func TestBuildOpenAI(t *testing.T) {
	bin := BuildOpenAI(t)
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(true))
	defer rt.Close(ctx)
	b, err := component.Decode(bin)
	if err != nil {
		t.Fatal(err)
	}
	c, err := component.Compile(ctx, rt, b, component.WorldDriver)
	if err != nil {
		t.Fatal(err)
	}
	in := `{"model":"m","messages":[]}`
	r, err := c.RunTool(ctx, component.Env{}, component.ToolInput{Data: &in})
	t.Logf("%s %v %v %s", r.Status, deref(r.Data), err, r.Stderr)
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
