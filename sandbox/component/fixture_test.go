package component

import (
	"context"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/murmur-nexus/murmur-eval/sandbox/component/componenttest"
)

// fixture returns the committed build of testdata/<name>.wat (or another
// source scripts/component-fixtures.sh lists).
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	return componenttest.Fixture(t, name)
}

func newRuntime(t testing.TB) wazero.Runtime {
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(true))
	t.Cleanup(func() { _ = rt.Close(ctx) })
	return rt
}

func compileFixture(t testing.TB, rt wazero.Runtime, name string, w World) *Component {
	t.Helper()
	b, err := Decode(fixture(t, name))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compile(context.Background(), rt, b, w)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
