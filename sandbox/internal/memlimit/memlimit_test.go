package memlimit

import (
	"context"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
)

const page = 65536

// TestReallocate drives one memory through the sizes wazero asks for: the
// initial size first, then each memory.grow. want is the length each step
// gets (-1: refused, nil), refused the allocator's record afterwards.
func TestReallocate(t *testing.T) {
	const limit = 4 * page
	tests := []struct {
		name    string
		sizes   []uint64
		want    []int
		refused uint64
		initial bool
	}{
		{"initial within", []uint64{page}, []int{page}, 0, false},
		{"initial at the limit", []uint64{limit}, []int{limit}, 0, false},
		{"initial one page over", []uint64{limit + page}, []int{-1}, limit + page, true},
		{"initial zero", []uint64{0}, []int{0}, 0, false},
		{"growth within", []uint64{page, 2 * page, 3 * page}, []int{page, 2 * page, 3 * page}, 0, false},
		{"growth to the limit", []uint64{page, limit}, []int{page, limit}, 0, false},
		{"growth one page over", []uint64{page, limit + page}, []int{page, -1}, limit + page, false},
		{"growth one byte over", []uint64{page, limit + 1}, []int{page, -1}, limit + 1, false},
		{"refused, then within", []uint64{page, 10 * page, 2 * page}, []int{page, -1, 2 * page}, 10 * page, false},
		{"largest refusal kept", []uint64{page, 10 * page, 6 * page}, []int{page, -1, -1}, 10 * page, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := New(limit, nil)
			m := a.Allocate(page, 1<<32)
			var last []byte
			for i, size := range tt.sizes {
				buf := m.Reallocate(size)
				switch {
				case tt.want[i] < 0 && buf != nil:
					t.Fatalf("Reallocate(%d) = %d bytes, want refused", size, len(buf))
				case tt.want[i] >= 0 && (buf == nil && size > 0 || len(buf) != tt.want[i]):
					t.Fatalf("Reallocate(%d) = %d bytes (nil %v), want %d", size, len(buf), buf == nil, tt.want[i])
				case buf != nil && uint64(cap(buf)) > limit:
					t.Fatalf("Reallocate(%d): capacity %d past the limit %d", size, cap(buf), limit)
				}
				if buf != nil && len(last) > 0 {
					if buf[0] != last[0] {
						t.Fatalf("Reallocate(%d) lost the contents", size)
					}
				}
				if len(buf) > 0 {
					buf[0] = byte(i + 1)
					last = buf
				}
			}
			if got := a.Refused(); got != tt.refused {
				t.Errorf("Refused() = %d, want %d", got, tt.refused)
			}
			if got := a.initial.Load(); got != tt.initial {
				t.Errorf("initial refusal recorded = %v, want %v", got, tt.initial)
			}
			m.Free()
		})
	}
}

func TestNilAllocator(t *testing.T) {
	var a *Allocator
	if a.Refused() != 0 {
		t.Error("a nil allocator refused something")
	}
	if err := a.Instantiate(func() error { return nil }); err != nil {
		t.Errorf("Instantiate: %v", err)
	}
}

// TestInstantiateRecoversOnlyARefusedInitialMemory: the panic wazero's
// bounds check raises on a refused initial memory becomes an error; any
// other panic is not swallowed.
func TestInstantiateRecoversOnlyARefusedInitialMemory(t *testing.T) {
	a := New(page, nil)
	defer func() {
		if r := recover(); r != "other" {
			t.Errorf("recovered %v, want the unrelated panic to go on", r)
		}
	}()
	_ = a.Instantiate(func() error { panic("other") })
	t.Error("Instantiate returned from an unrelated panic")
}

// memoryModule is a core module whose only content is a linear memory of
// minPages pages, exported as "memory" or not at all.
func memoryModule(minPages byte, exported bool) []byte {
	wasm := []byte("\x00asm\x01\x00\x00\x00")
	wasm = append(wasm, 5, 3, 1, 0, minPages) // memory section: one memory, min only
	if exported {
		wasm = append(wasm, 7, 10, 1, 6, 'm', 'e', 'm', 'o', 'r', 'y', 2, 0) // export section
	}
	return wasm
}

// TestInstantiate: under wazero itself, an initial memory over the limit
// ends the instantiation with an error (not a host panic), whether or not
// the module exports the memory, and is recorded as the refused size; one
// at the limit instantiates.
func TestInstantiate(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	tests := []struct {
		name     string
		wasm     []byte
		wantErr  bool
		wantSize uint64
	}{
		{"exported, over", memoryModule(3, true), true, 3 * page},
		{"unexported, over", memoryModule(3, false), true, 3 * page},
		{"exported, at the limit", memoryModule(2, true), false, 0},
		{"unexported, within", memoryModule(1, false), false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := New(2*page, nil)
			callCtx := experimental.WithMemoryAllocator(ctx, a)
			compiled, err := rt.CompileModule(ctx, tt.wasm)
			if err != nil {
				t.Fatal(err)
			}
			err = a.Instantiate(func() error {
				mod, err := rt.InstantiateModule(callCtx, compiled, wazero.NewModuleConfig().WithName(""))
				if mod != nil {
					_ = mod.Close(ctx)
				}
				return err
			})
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "initial linear memory") {
				t.Errorf("err = %v", err)
			}
			if got := a.Refused(); got != tt.wantSize {
				t.Errorf("Refused() = %d, want %d", got, tt.wantSize)
			}
		})
	}
}
