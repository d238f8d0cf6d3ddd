package binary

import (
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func TestDecodeRefuses(t *testing.T) {
	pre := func(b ...byte) []byte { return append([]byte(preamble), b...) }
	tests := []struct {
		name string
		bin  []byte
	}{
		{"empty", nil},
		{"core module", []byte{0, 'a', 's', 'm', 1, 0, 0, 0}},
		{"future layer", []byte{0, 'a', 's', 'm', 0x0e, 0, 1, 0}},
		{"truncated section", pre(7, 10, 1)},
		{"huge count", pre(7, 5, 0xff, 0xff, 0xff, 0xff, 0x0f)},
		{"bad leb128", pre(7, 6, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01)},
		{"bad type tag", pre(7, 2, 1, 0x01)},
		{"unknown section", pre(99, 0)},
		{"async canon", pre(8, 2, 1, 0x09)},
		{"deep nesting", nested(maxDepth + 2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(tt.bin)
			if !errcode.Is(err, errcode.RunCapsule) {
				t.Fatalf("got %v, want E-RUN-001", err)
			}
		})
	}
}

// nested returns a component nesting n components.
func nested(n int) []byte {
	b := []byte(preamble)
	for i := 0; i < n; i++ {
		body := b
		b = append([]byte(preamble), 4)
		b = appendU32(b, uint32(len(body)))
		b = append(b, body...)
	}
	return b
}

func appendU32(b []byte, v uint32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
