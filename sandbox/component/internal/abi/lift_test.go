package abi

import (
	"errors"
	"testing"
)

type mem []byte

func (m mem) Read(off, n uint32) ([]byte, bool) {
	if uint64(off)+uint64(n) > uint64(len(m)) {
		return nil, false
	}
	return m[off : off+n], true
}
func (m mem) Size() uint32 { return uint32(len(m)) }

// TestLift: an option<string> and a string lift from their layout; a bad
// tag, an out-of-bounds string and invalid UTF-8 are LiftErrors naming
// the result.
func TestLift(t *testing.T) {
	m := mem("....hi\xff\xfe")
	some := []byte{1, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0}
	if v, err := LiftOption(m, some); err != nil || v == nil || *v != "hi" {
		t.Errorf("some: %v, %v", v, err)
	}
	if v, err := LiftOption(m, []byte{0}); err != nil || v != nil {
		t.Errorf("none: %v, %v", v, err)
	}
	for name, b := range map[string][]byte{
		"bad tag":       {2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		"out of bounds": {1, 0, 0, 0, 4, 0, 0, 0, 9, 0, 0, 0},
		"invalid UTF-8": {1, 0, 0, 0, 6, 0, 0, 0, 2, 0, 0, 0},
	} {
		_, err := LiftOption(m, b)
		var le *LiftError
		if !errors.As(err, &le) {
			t.Errorf("%s: got %v, want a LiftError", name, err)
			continue
		}
		le.What = "hook-output"
		if got := le.Error(); got[:len("invalid hook-output: ")] != "invalid hook-output: " {
			t.Errorf("%s: %q does not name the result", name, got)
		}
	}
}
