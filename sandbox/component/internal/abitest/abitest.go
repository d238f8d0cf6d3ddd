// Package abitest gives the component host's layer tests a real linear
// memory to lower values into and a cabi_realloc over it, without a
// component: one page of a wazero memory (a module that only exports it)
// and a bump allocator.
package abitest

import (
	"context"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// Memory is one page of a real wazero linear memory, closed when t ends,
// and a live view of its bytes.
func Memory(t testing.TB) (api.Memory, []byte) {
	t.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	t.Cleanup(func() { _ = rt.Close(ctx) })
	bin := []byte{0, 'a', 's', 'm', 1, 0, 0, 0,
		5, 3, 1, 0, 1, // memory section: one memory, at least one page
		7, 10, 1, 6, 'm', 'e', 'm', 'o', 'r', 'y', 2, 0} // export it as "memory"
	mod, err := rt.Instantiate(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	mem := mod.ExportedMemory("memory")
	b, ok := mem.Read(0, mem.Size())
	if !ok {
		t.Fatal("memory not readable")
	}
	return mem, b
}

// Bump is a cabi_realloc that hands out aligned addresses from Next on,
// never freeing; its other api.Function methods panic (nil embedded).
type Bump struct {
	api.Function
	Next uint64
}

// Call implements cabi_realloc(old, old_size, align, size).
func (a *Bump) Call(_ context.Context, p ...uint64) ([]uint64, error) {
	align, size := p[2], p[3]
	a.Next = (a.Next + align - 1) &^ (align - 1)
	r := a.Next
	a.Next += size
	return []uint64{r}, nil
}
