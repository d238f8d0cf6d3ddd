package component

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/componenttest"
)

// TestCompileRefusesHostileCoreModules: a component whose main module or
// preview-1 adapter declares 2^32-1 function names (a name section wazero
// would size by that count, ending the process), or defines four tables of
// 2^27 elements (4 GiB at instantiation), is refused with E-RUN-001 naming
// the module, before wazero sees it.
func TestCompileRefusesHostileCoreModules(t *testing.T) {
	const tables = "table section: table 0's minimum is 134217728 elements; at most 100000 are allowed"
	tests := []struct {
		fixture string
		module  int // which core module, in binary order, gets the bomb
		bomb    func(*testing.T, []byte, int) []byte
		want    string
	}{
		{"ctool", 0, withNameBomb, "component main module: name section: function names declares 4294967295 names in 5 bytes"},
		{"p1tool", 0, withNameBomb, "component main module: name section: function names declares 4294967295 names in 5 bytes"},
		{"p1tool", 1, withNameBomb, "component preview-1 adapter module: name section: function names declares 4294967295 names"},
		{"ctool", 0, withTableBomb, "component main module: " + tables},
		{"p1tool", 0, withTableBomb, "component main module: " + tables},
		{"p1tool", 1, withTableBomb, "component preview-1 adapter module: " + tables},
	}
	for _, tt := range tests {
		kind := "names"
		if strings.Contains(tt.want, tables) {
			kind = "tables"
		}
		t.Run(tt.fixture+"/"+tt.want[:strings.Index(tt.want, ":")]+"/"+kind, func(t *testing.T) {
			bin, err := Decode(tt.bomb(t, fixture(t, tt.fixture), tt.module))
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
	return componenttest.EditCore(t, bin, k, func(mod []byte) []byte { return append(append([]byte{}, mod...), bomb...) })
}

// tableBomb is a table section defining 4 funcref tables of 2^27 elements
// each: 4 GiB that wazero allocates at instantiation.
var tableBomb = append([]byte{4, 25, 4}, bytes.Repeat([]byte{0x70, 0, 0x80, 0x80, 0x80, 0x40}, 4)...)

// withTableBomb puts tableBomb in core module k of a component in place
// of its table section, or where one would go.
func withTableBomb(t *testing.T, bin []byte, k int) []byte {
	t.Helper()
	return componenttest.EditCore(t, bin, k, func(mod []byte) []byte {
		for off := 8; off < len(mod); {
			id := mod[off]
			n, next := componenttest.ULEB(mod, off+1)
			if id == 4 || (id > 4 && id != 0) {
				rest := mod[off:]
				if id == 4 {
					rest = mod[next+n:]
				}
				return append(append(append([]byte{}, mod[:off]...), tableBomb...), rest...)
			}
			off = next + n
		}
		return append(append([]byte{}, mod...), tableBomb...)
	})
}
