package drivertest

import (
	"context"
	"testing"

	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/sandbox/component"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/componenttest"
)

// OpenAIDriver is testdata/openai-driver as a murmur driver component:
// built by Go (GOOS=wasip1, c-shared), given its cabi_realloc
// (AddRealloc) and wrapped with jco's preview-1 reactor adapter by
// scripts/component-fixtures.sh, which commits it as the component
// fixture openai-driver.
func OpenAIDriver(t testing.TB) []byte {
	t.Helper()
	return componenttest.Fixture(t, "openai-driver")
}

// AddRealloc appends to the Go core module core a cabi_realloc that
// bump-allocates from the fixture's arena, and exports it (see addRealloc);
// scripts/addrealloc runs it when the fixture is built.
func AddRealloc(core []byte) ([]byte, error) { return addRealloc(core) }

// Compile decodes bin and compiles it for murmur's driver world on an
// engine of its own, closed when t ends.
func Compile(t testing.TB, bin []byte) *component.Component {
	t.Helper()
	ctx := context.Background()
	e, err := sandbox.NewEngine(ctx, sandbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close(ctx) })
	b, err := component.Decode(bin)
	if err != nil {
		t.Fatal(err)
	}
	c, err := component.Compile(ctx, e.Runtime(), b, component.WorldDriver)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
