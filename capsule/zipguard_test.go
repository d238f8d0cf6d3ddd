package capsule

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"hash/crc32"
	"math"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// §3.3: the ceiling's environment override, read as murmur reads it.
func TestMaxEntryBytes(t *testing.T) {
	tests := map[string]int64{
		"1048576":              1048576,
		"+5":                   5,
		"abc":                  DefaultMaxEntryBytes,
		"-1":                   DefaultMaxEntryBytes,
		" 5":                   DefaultMaxEntryBytes,
		"0":                    DefaultMaxEntryBytes,
		"18446744073709551615": math.MaxInt64,
	}
	for v, want := range tests {
		if got := MaxEntryBytes(envOf(map[string]string{MaxEntryBytesEnv: v})); got != want {
			t.Errorf("%s=%q: %d, want %d", MaxEntryBytesEnv, v, got, want)
		}
	}
	if got := MaxEntryBytes(envOf(nil)); got != DefaultMaxEntryBytes {
		t.Errorf("unset: %d, want %d", got, DefaultMaxEntryBytes)
	}
	if got := MaxEntryBytes(nil); got != DefaultMaxEntryBytes {
		t.Errorf("nil lookup: %d, want %d", got, DefaultMaxEntryBytes)
	}
}

// deflated compresses n zero bytes.
func deflated(t testing.TB, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	for n > 0 {
		k := min(n, len(chunk))
		if _, err := w.Write(chunk[:k]); err != nil {
			t.Fatal(err)
		}
		n -= k
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// rawZip builds an archive whose last entry has exactly the given header
// sizes and compressed bytes, true or not.
func rawZip(t testing.TB, entry string, compressed []byte, crc uint32, size uint64) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("murmur.yaml")
	if err == nil {
		_, err = w.Write([]byte(toolYAML))
	}
	if err != nil {
		t.Fatal(err)
	}
	w, err = zw.CreateRaw(&zip.FileHeader{Name: entry, Method: zip.Deflate, CRC32: crc,
		CompressedSize64: uint64(len(compressed)), UncompressedSize64: size})
	if err == nil {
		_, err = w.Write(compressed)
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// §3.3: a zip bomb is refused however its headers describe it, without
// inflating more than the ceiling.
func TestZipBombs(t *testing.T) {
	const size = 16 << 20
	bomb := deflated(t, size)
	crc := crc32.ChecksumIEEE(make([]byte, size))
	tests := []struct {
		name string
		zip  []byte
		max  int64
	}{
		{"honest sizes over the ceiling", rawZip(t, "capsule.wasm", bomb, crc, size), 1 << 20},
		{"sizes that lie", rawZip(t, "capsule.wasm", bomb, crc, 100), 1 << 20},
		{"declared past the default ceiling", rawZip(t, "capsule.wasm", bomb, crc, 1<<40), 0},
		{"manifest is the bomb", func() []byte {
			var buf bytes.Buffer
			zw := zip.NewWriter(&buf)
			w, _ := zw.CreateRaw(&zip.FileHeader{Name: "murmur.yaml", Method: zip.Deflate, CRC32: crc,
				CompressedSize64: uint64(len(bomb)), UncompressedSize64: size})
			_, _ = w.Write(bomb)
			_ = zw.Close()
			return buf.Bytes()
		}(), 1 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ReadArchive("echo", "1.0.0", tt.zip, tt.max)
			if got := errcode.Code(err); got != errcode.IO {
				t.Errorf("ReadArchive = %+v, code %q; want %q (error: %v)", a, got, errcode.IO, err)
			}
		})
	}
	// Under the ceiling the same entry is fine.
	if _, err := ReadArchive("echo", "1.0.0", rawZip(t, "capsule.wasm", bomb, crc, size), size); err != nil {
		t.Errorf("entry at the ceiling: %v", err)
	}
}

func TestZipSlipEntries(t *testing.T) {
	for _, name := range []string{"../evil.wasm", "a/../../evil", `..\evil.wasm`, "/../etc/passwd", `C:\evil.wasm`, "c:/evil", `\\server\share`, "a\x00b"} {
		z := makeZip(t, zipEntry{"murmur.yaml", toolYAML}, zipEntry{name, "x"}, zipEntry{"capsule.wasm", "C"})
		if _, err := ReadArchive("echo", "1.0.0", z, 0); errcode.Code(err) != errcode.IO {
			t.Errorf("entry %q: code = %q, want %q (error: %v)", name, errcode.Code(err), errcode.IO, err)
		}
	}
	// A leading slash is stripped, as zip_guard does; the name stays inside.
	z := makeZip(t, zipEntry{"murmur.yaml", toolYAML}, zipEntry{"/docs/a.md", "x"}, zipEntry{"capsule.wasm", "C"})
	if _, err := ReadArchive("echo", "1.0.0", z, 0); err != nil {
		t.Errorf("leading slash: %v", err)
	}
}

func TestRegistryPassesTheCeiling(t *testing.T) {
	project := t.TempDir()
	putStore(t, ProjectStore(project), "echo", "1.0.0", "", "echo", "e")
	reg := NewRegistry(project, "")
	reg.MaxEntryBytes = 4096
	res, err := reg.Resolve("echo", "1.0.0", "")
	if err != nil || res.MaxEntryBytes != 4096 {
		t.Errorf("Resolve = %+v, %v; want MaxEntryBytes 4096", res, err)
	}
}
