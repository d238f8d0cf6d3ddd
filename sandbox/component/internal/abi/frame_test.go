package abi

import (
	"strings"
	"testing"
)

// TestI32ParamsIgnoreHighBits: wazero passes an i32 parameter in a 64-bit
// stack slot whose upper half may hold junk from earlier calls (a second
// murmur:tool-registry/invoke once trapped with "option tag 41871636168704
// is not 0 or 1"); the host reads only the low 32 bits.
func TestI32ParamsIgnoreHighBits(t *testing.T) {
	s := &Frame{}
	if got := s.LiftOptionArg(9749<<32, 0, 0); got != nil {
		t.Errorf("option tag 0 with junk above it lifted as %q, want none", *got)
	}
	defer func() {
		r := recover()
		tr, ok := r.(*Trap)
		if !ok || !strings.Contains(tr.Text, "option tag 2 is not 0 or 1") {
			t.Errorf("a bad tag with junk above it: %v, want a trap naming tag 2", r)
		}
	}()
	s.LiftOptionArg(9749<<32|2, 0, 0)
}
