package sandbox

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestCompileRefusesHostileCounts: a module declaring counts its bytes
// cannot hold is refused with E-RUN-001 naming the tool and the count;
// given to wazero it would end the process (fatal error: out of memory).
func TestCompileRefusesHostileCounts(t *testing.T) {
	const hdr = "\x00asm\x01\x00\x00\x00"
	tests := []struct {
		name, wasm, want string
	}{
		{"2^32-1 data segments", hdr + "\x0b\x05\xff\xff\xff\xff\x0f",
			"compile tool 'bomb': data section declares 4294967295 segments in 5 bytes"},
		{"2^32-1 locals", hdr + "\x01\x04\x01\x60\x00\x00" + "\x03\x02\x01\x00" +
			"\x0a\x0a\x01\x08\x01\xff\xff\xff\xff\x0f\x7f\x0b",
			"compile tool 'bomb': code section: body 0 declares 4294967295 locals; at most 50000 are allowed"},
		{"2^32-1 function names", hdr + "\x00\x0c\x04name\x01\x05\xff\xff\xff\xff\x0f",
			"compile tool 'bomb': name section: function names declares 4294967295 names in 5 bytes"},
		{"4 tables of 2^27 elements", hdr + "\x04\x19\x04" + strings.Repeat("\x70\x00\x80\x80\x80\x40", 4),
			"compile tool 'bomb': table section: table 0's minimum is 134217728 elements; at most 100000 are allowed"},
	}
	e := newTestEngine(t, Config{CacheDir: t.TempDir()})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.Compile(context.Background(), "bomb", []byte(tt.wasm))
			wantCode(t, err, errcode.RunCapsule)
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Compile = %q, want it to contain %q", err, tt.want)
			}
			var ee *errcode.Error
			if !errors.As(err, &ee) {
				t.Fatalf("Compile = %T, want an *errcode.Error", err)
			}
			if ee.Hint != rebuildHint {
				t.Errorf("hint %q, want the rebuild hint", ee.Hint)
			}
		})
	}
}

// TestCompileHoldsTablesToTheManifest: Config.TableElements
// (capabilities.limits.table_elements) is the limit a table's minimum is
// held to, lowered or raised from murmur's default of 100,000.
func TestCompileHoldsTablesToTheManifest(t *testing.T) {
	// One table of 150,000 elements (0xf0 0x93 0x09), no maximum.
	wasm := []byte("\x00asm\x01\x00\x00\x00" + "\x04\x06\x01\x70\x00\xf0\x93\x09")
	tests := []struct {
		limit uint32
		want  string // "": the tables pass (the module, without _start, is refused for that)
	}{
		{0, "table 0's minimum is 150000 elements; at most 100000 are allowed"},
		{200_000, ""},
		{1000, "at most 1000 are allowed"},
	}
	for _, tt := range tests {
		e := newTestEngine(t, Config{TableElements: tt.limit})
		_, err := e.Compile(context.Background(), "big", wasm)
		if tt.want == "" && (err == nil || strings.Contains(err.Error(), "table")) ||
			tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("limit %d: Compile = %v, want %q", tt.limit, err, tt.want)
		}
	}
}
