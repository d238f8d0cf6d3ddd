package main

import (
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// hostileManifest is the hostile tool's own murmur.yaml.
const hostileManifest = `name: hostile
version: 0.1.0
runtime: tool
description: A tool whose binary lies about its counts.
input_schema:
  type: object
requires_files: [hostile.wasm]
`

// TestHostileModuleRefusedAtVerify: a WASM tool whose binary declares
// counts its bytes cannot hold, which made wazero end the whole process
// ("fatal error: runtime: out of memory"), is refused at Verify like any
// capsule that cannot run: exit 2, E-RUN-001 naming the tool and the
// count, and no Go runtime crash. Once as a preview-1 module (the 15-byte
// data section bomb), once as a component whose main module carries a
// name section declaring 2^32-1 function names.
func TestHostileModuleRefusedAtVerify(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	qs := quickstart(t)
	t.Parallel()
	tests := []struct {
		name   string
		wasm   func(t *testing.T) []byte
		reason string
	}{
		{"preview-1 module", func(*testing.T) []byte {
			return []byte("\x00asm\x01\x00\x00\x00\x0b\x05\xff\xff\xff\xff\x0f")
		}, "data section declares 4294967295 segments in 5 bytes"},
		{"component main module", func(t *testing.T) []byte {
			return withNameBomb(t, ctoolComponent(t))
		}, "component main module: name section: function names declares 4294967295 names in 5 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := copyTree(t, qs)
			packComponentTool(t, dir, "hostile", hostileManifest, tt.wasm(t))
			editManifest(t, dir, "  - name: notes\n", "  - name: hostile\n    runtime: tool\n    version: 0.1.0\n  - name: notes\n")
			_, r := newFixture(t, dir).run()
			if strings.Contains(r.stderr, "fatal error") || strings.Contains(r.stderr, "goroutine ") {
				t.Fatalf("murmur-eval crashed:\n%s", r.stderr)
			}
			if r.code != exitUsage {
				t.Fatalf("exit %d, want %d (a capsule refused at Verify)\nstderr:\n%s", r.code, exitUsage, r.stderr)
			}
			i := strings.LastIndex(r.stderr, "error["+errcode.RunCapsule+"]: ")
			if i < 0 {
				t.Fatalf("no %s error:\n%s", errcode.RunCapsule, r.stderr)
			}
			line, _, _ := strings.Cut(r.stderr[i:], "\n")
			if !strings.Contains(line, "tool 'hostile'") || !strings.Contains(line, tt.reason) {
				t.Errorf("the refusal %q does not name tool 'hostile' and %q", line, tt.reason)
			}
		})
	}
}

// withNameBomb appends to a component's first core module (its main
// module, in a wit-component build) a name section whose function-name
// map declares 2^32-1 entries in 5 bytes.
func withNameBomb(t *testing.T, bin []byte) []byte {
	t.Helper()
	bomb := []byte{0, 12, 4, 'n', 'a', 'm', 'e', 1, 5, 0xff, 0xff, 0xff, 0xff, 0x0f}
	for off := 8; off < len(bin); {
		id := bin[off]
		n, next := uleb(bin, off+1)
		if id != 1 {
			off = next + n
			continue
		}
		mod := append(append([]byte{}, bin[next:next+n]...), bomb...)
		out := append(append([]byte{}, bin[:off]...), 1)
		out = append(out, leb128(len(mod))...)
		out = append(out, mod...)
		return append(out, bin[next+n:]...)
	}
	t.Fatal("the component has no core module")
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

func leb128(v int) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		if v >>= 7; v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
