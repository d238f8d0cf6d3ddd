package component

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// TestTableGrowthPastTheLimit: a component's table.grow past
// capabilities.limits.table_elements fails the call as murmur's limiter
// fails it (E-RUN-001, sandbox.ErrTable, murmur's text naming the size
// asked for and the limit), whatever the limit; a memory refusal is
// reported the same way as before, and the next call on the component
// starts afresh.
func TestTableGrowthPastTheLimit(t *testing.T) {
	rt := newRuntime(t)
	for _, tt := range []struct {
		limit uint32
		want  string
	}{
		{0, "table growth to 1048577 elements exceeds capabilities.limits.table_elements (100000)"},
		{2_000_000, ""}, // within the limit: the grow succeeds
		{10, "table growth to 1048577 elements exceeds capabilities.limits.table_elements (10)"},
	} {
		b, err := Decode(fixture(t, "stateful_table"))
		if err != nil {
			t.Fatal(err)
		}
		c, err := Compile(context.Background(), rt, b, WorldTool, WithTableElements(tt.limit))
		if err != nil {
			t.Fatalf("limit %d: %v", tt.limit, err)
		}
		_, err = runStateful(t, c, Env{Name: "grower"}, "T")
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("limit %d: got %v, want the call to succeed", tt.limit, err)
		case tt.want != "" && (errcode.Code(err) != errcode.RunCapsule || sandbox.KindOf(err) != sandbox.ErrTable ||
			!strings.Contains(err.Error(), "tool 'grower' exceeded its configured resource limits: "+tt.want)):
			t.Errorf("limit %d: got %v (kind %q), want E-RUN-001, %q, %q", tt.limit, err, sandbox.KindOf(err), sandbox.ErrTable, tt.want)
		}
		if got, err := runStateful(t, c, Env{}, "k"); err != nil || got != freshAnswer {
			t.Errorf("limit %d: the next call got %q, %v, want %q", tt.limit, got, err, freshAnswer)
		}
		_ = c.Close(context.Background())
	}
}

// TestDenialMessages: a refusal reads as murmur's text for a tool and for
// a script capsule, with the matching kind; a memory refusal (the guest saw
// memory.grow's -1 and went on) wins over a later table one.
func TestDenialMessages(t *testing.T) {
	ctx := context.Background()
	trap := errors.New("wasm error: unreachable")
	table := denial{table: 11, tableLimit: 10, memoryLimit: 1 << 20}
	both := denial{memory: 2 << 20, memoryLimit: 1 << 20, table: 11, tableLimit: 10}
	for _, tt := range []struct {
		name string
		err  error
		kind sandbox.Kind
		want string
	}{
		{"tool, table", callError(ctx, ctx, "x", 0, table, trap), sandbox.ErrTable,
			"tool 'x' exceeded its configured resource limits: table growth to 11 elements exceeds capabilities.limits.table_elements (10)"},
		{"capsule, table", capsuleError(ctx, ctx, 0, table, trap), sandbox.ErrTable,
			"capsule execution exceeded its configured resource limits: table growth to 11 elements exceeds capabilities.limits.table_elements (10)"},
		{"tool, memory first", callError(ctx, ctx, "x", 0, both, trap), sandbox.ErrMemory,
			"tool 'x' exceeded its configured resource limits: linear memory growth to 2097152 bytes exceeds capabilities.limits.memory_bytes (1048576)"},
		{"tool, none", callError(ctx, ctx, "x", 0, denial{}, trap), sandbox.ErrTrap, "tool 'x' trapped: wasm error: unreachable"},
	} {
		if errcode.Code(tt.err) != errcode.RunCapsule || sandbox.KindOf(tt.err) != tt.kind || tt.err.Error() != tt.want {
			t.Errorf("%s: got %v (code %s, kind %q); want %s, %q, %q", tt.name, tt.err, errcode.Code(tt.err), sandbox.KindOf(tt.err), errcode.RunCapsule, tt.kind, tt.want)
		}
	}
	var e *errcode.Error
	if !errors.As(callError(ctx, ctx, "x", 0, table, trap), &e) || !strings.Contains(e.Hint, "capabilities.limits.table_elements") {
		t.Errorf("the table refusal's hint (%v) does not name capabilities.limits.table_elements", e)
	}
}
