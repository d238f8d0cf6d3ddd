package component

import (
	"context"
	"testing"
)

// TestGoShapedReactor: a preview-1 reactor shaped as Go's wasip1 c-shared
// builds are (testdata/p1init.wat: _initialize, which wit-component's
// fixup imports from "main", and fd_write imported twice, the second as
// "fd_write [v2]") compiles, runs _initialize once per instance, and both
// fd_write imports reach the adapter's fd_write.
func TestGoShapedReactor(t *testing.T) {
	rt := newRuntime(t)
	c := compileFixture(t, rt, "p1init", WorldTool)
	for range 2 {
		r, err := c.RunTool(context.Background(), Env{}, ToolInput{Data: str("hello")})
		if err != nil {
			t.Fatal(err)
		}
		if deref(r.Data) != "init=1" || string(r.Stdout) != "hello" {
			t.Errorf("got data %q stdout %q, want init=1 and hello", deref(r.Data), r.Stdout)
		}
	}
}
