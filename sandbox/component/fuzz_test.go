package component

import (
	"testing"
)

// preamble opens a component binary (layer 1).
const preamble = "\x00asm\x0d\x00\x01\x00"

// FuzzDecode feeds hostile bytes to the component reader and validator:
// they must return an error or a Binary, never panic or hang.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(preamble))
	f.Add(append([]byte(preamble), 7, 5, 1, 0x72, 1, 0, 0x73))
	f.Add(append([]byte(preamble), 1, 0xff, 0xff, 0xff, 0xff, 0x0f))
	f.Add(append([]byte(preamble), 2, 3, 0xff, 0xff, 0xff))
	// The committed fixtures let the fuzzer start from real components.
	for _, n := range []string{"tool", "capsule", "p1tool", "hook"} {
		f.Add(fixture(f, n))
	}
	f.Fuzz(func(t *testing.T, bin []byte) {
		b, err := Decode(bin)
		if err != nil {
			return
		}
		_, _ = validate(b.c, WorldTool)
		_, _ = validate(b.c, WorldCapsule)
		_, _ = validate(b.c, WorldHook)
	})
}

type fakeMem []byte

func (m fakeMem) Read(off, n uint32) ([]byte, bool) {
	if uint64(off)+uint64(n) > uint64(len(m)) {
		return nil, false
	}
	return m[off : off+n], true
}
func (m fakeMem) Size() uint32 { return uint32(len(m)) }

// FuzzLiftResult lifts tool-results from arbitrary guest memory: errors,
// never panics.
func FuzzLiftResult(f *testing.F) {
	f.Add(make([]byte, 128), uint32(0))
	f.Add(append([]byte{1, 0, 0, 0, 1, 0, 0, 0, 60, 0, 0, 0, 4}, make([]byte, 100)...), uint32(0))
	f.Fuzz(func(t *testing.T, mem []byte, ptr uint32) {
		_, _ = liftResult(fakeMem(mem), ptr)
	})
}

// FuzzLiftHookResult lifts result<hook-output, string> from arbitrary
// guest memory: errors, never panics.
func FuzzLiftHookResult(f *testing.F) {
	f.Add(make([]byte, 64), uint32(0))
	f.Add(append([]byte{0, 0, 0, 0, 1, 0, 0, 0, 16, 0, 0, 0, 1, 0, 0, 0}, make([]byte, 48)...), uint32(0))
	f.Add(append([]byte{0, 0, 0, 0, 4, 0, 0, 0, 16, 0, 0, 0, 2, 0, 0, 0, 'o', 'k'}, make([]byte, 8)...), uint32(0))
	f.Fuzz(func(t *testing.T, mem []byte, ptr uint32) {
		_, _, _ = liftHookResult(fakeMem(mem), ptr)
	})
}
