package component

import (
	"context"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestCompileRefusesHostileCoreModules: a component whose main module or
// preview-1 adapter declares 2^32-1 function names (a name section wazero
// would size by that count, ending the process) is refused with E-RUN-001
// naming the module, before wazero sees it.
func TestCompileRefusesHostileCoreModules(t *testing.T) {
	tests := []struct {
		fixture string
		module  int // which core module, in binary order, gets the bomb
		want    string
	}{
		{"ctool", 0, "component main module: name section: function names declares 4294967295 names in 5 bytes"},
		{"p1tool", 0, "component main module: name section: function names declares 4294967295 names in 5 bytes"},
		{"p1tool", 1, "component preview-1 adapter module: name section: function names declares 4294967295 names"},
	}
	for _, tt := range tests {
		t.Run(tt.fixture+"/"+tt.want[:strings.Index(tt.want, ":")], func(t *testing.T) {
			bin, err := Decode(withNameBomb(t, fixture(t, tt.fixture), tt.module))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			_, err = Compile(context.Background(), newRuntime(t), bin, WorldTool)
			if got := errcode.Code(err); got != errcode.RunCapsule {
				t.Fatalf("Compile = %v (code %q), want %s", err, got, errcode.RunCapsule)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Compile = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

// withNameBomb appends to core module k of a component (top level, in
// binary order) a name section whose function-name map declares 2^32-1
// entries in 5 bytes.
func withNameBomb(t *testing.T, bin []byte, k int) []byte {
	t.Helper()
	bomb := []byte{0, 12, 4, 'n', 'a', 'm', 'e', 1, 5, 0xff, 0xff, 0xff, 0xff, 0x0f}
	for off := 8; off < len(bin); {
		id := bin[off]
		n, next := uleb(bin, off+1)
		if id != 1 || k > 0 {
			if id == 1 {
				k--
			}
			off = next + n
			continue
		}
		mod := append(append([]byte{}, bin[next:next+n]...), bomb...)
		out := append(append([]byte{}, bin[:off]...), 1)
		out = append(out, uleb128(len(mod))...)
		out = append(out, mod...)
		return append(out, bin[next+n:]...)
	}
	t.Fatal("the component has too few core modules")
	return nil
}

// uleb decodes the unsigned LEB128 at b[off:], returning it and the offset after it.
func uleb(b []byte, off int) (int, int) {
	v := 0
	for shift := 0; ; shift += 7 {
		c := b[off]
		off++
		v |= int(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, off
		}
	}
}

func uleb128(v int) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		if v >>= 7; v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
