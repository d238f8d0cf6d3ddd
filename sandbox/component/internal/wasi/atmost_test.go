package wasi

import (
	"bytes"
	"io"
	"testing"
)

// TestAtMost: a read from a body of known length needs room for what is
// left and one byte more (to see the end), never more than asked; a body
// of unknown length, or another stream, gets what was asked.
func TestAtMost(t *testing.T) {
	body := func(length int64) *inStream {
		return &inStream{r: &cappedBody{r: bytes.NewReader(make([]byte, 300)), max: 1 << 20, length: length}, partial: true}
	}
	known := body(300)
	tests := []struct {
		name string
		in   *inStream
		ask  uint64
		want uint64
	}{
		{"known length, large ask", known, 16384, 301},
		{"known length, small ask", known, 100, 100},
		{"unknown length", body(-1), 16384, 16384},
		{"not a body", &inStream{r: bytes.NewReader(nil)}, 16384, 16384},
		{"nothing asked", known, 0, 0},
	}
	for _, tt := range tests {
		if got := atMost(tt.in, tt.ask); got != tt.want {
			t.Errorf("%s: atMost(%d) = %d, want %d", tt.name, tt.ask, got, tt.want)
		}
	}

	// Read to the end in the sizes atMost gives: all 300 bytes, then EOF
	// through a one-byte buffer.
	got := 0
	for range 3 {
		buf := make([]byte, atMost(known, 16384))
		n, err := readIn(t.Context(), known, buf)
		got += n
		if err == io.EOF {
			if len(buf) != 1 || got != 300 {
				t.Fatalf("end seen through %d bytes after %d read", len(buf), got)
			}
			return
		}
	}
	t.Fatalf("no end after %d bytes", got)
}
