package capsule

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

type zipEntry struct {
	name, data string
}

// makeZip builds an archive from entries in order, deflated, keeping names
// verbatim (including unsafe ones).
func makeZip(t testing.TB, entries ...zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const toolYAML = "name: echo\nversion: 1.0.0\nruntime: tool\n"

func TestReadArchivePayload(t *testing.T) {
	tests := []struct {
		name         string
		entries      []zipEntry
		wantEntry    string
		wantPayload  string
		wantPackaged Execution
	}{
		{"capsule.wasm wins", []zipEntry{{"murmur.yaml", toolYAML}, {"a.wasm", "A"}, {"capsule.wasm", "C"}, {"z.wasm", "Z"}},
			"capsule.wasm", "C", ExecutionWasm},
		{"one root wasm", []zipEntry{{"murmur.yaml", toolYAML}, {"sub/x.wasm", "X"}, {"echo.wasm", "E"}},
			"echo.wasm", "E", ExecutionWasm},
		{"leading slash is stripped but not a candidate", []zipEntry{{"murmur.yaml", toolYAML}, {"/abs.wasm", "B"}, {"tool.wasm", "T"}},
			"tool.wasm", "T", ExecutionWasm},
		{"native tool", []zipEntry{{"murmur.yaml", toolYAML + "implementation: native\n"}, {"bin/echo", "ELF"}},
			"bin/echo", "ELF", ExecutionNative},
		{"skill", []zipEntry{{"murmur.yaml", "name: echo\nversion: 1.0.0\nruntime: skill\n"}, {"skill.md", "# Use me"}},
			"skill.md", "# Use me", ExecutionStatic},
		{"execution overrides role", []zipEntry{{"murmur.yaml", toolYAML + "execution: STATIC\n"}, {"skill.md", "doc"}},
			"skill.md", "doc", ExecutionStatic},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ReadArchive("echo", "1.0.0", makeZip(t, tt.entries...), 0)
			if err != nil {
				t.Fatalf("ReadArchive: %v", err)
			}
			got := []string{a.PayloadEntry, string(a.Payload), string(a.Packaging), a.ManifestText}
			want := []string{tt.wantEntry, tt.wantPayload, string(tt.wantPackaged), tt.entries[0].data}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("payload mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadArchiveErrors(t *testing.T) {
	manifest := zipEntry{"murmur.yaml", toolYAML}
	tests := []struct {
		name    string
		zip     []byte
		max     int64
		code    string
		msgPart string
	}{
		{"not a zip", []byte("plain text"), 0, errcode.IO, "zip archive error"},
		{"no manifest", makeZip(t, zipEntry{"capsule.wasm", "C"}), 0, errcode.IO, "missing or unreadable murmur.yaml"},
		{"no root wasm", makeZip(t, manifest, zipEntry{"lib/a.wasm", "A"}), 0, errcode.IO,
			"missing root .wasm file (expected capsule.wasm or one root *.wasm)"},
		{"two root wasm", makeZip(t, manifest, zipEntry{"b.wasm", "B"}, zipEntry{"a.wasm", "A"}), 0, errcode.IO,
			"multiple root .wasm files found: a.wasm, b.wasm"},
		{"dot-dot entry", makeZip(t, manifest, zipEntry{"../evil.wasm", "E"}), 0, errcode.IO, "contains a '..' component"},
		{"nested dot-dot entry", makeZip(t, manifest, zipEntry{"a/../../x", "E"}, zipEntry{"c.wasm", "C"}), 0, errcode.IO, "unsafe path"},
		{"drive entry", makeZip(t, manifest, zipEntry{"C:/x", "E"}, zipEntry{"c.wasm", "C"}), 0, errcode.IO, "absolute path component"},
		{"duplicate entry", makeZip(t, manifest, zipEntry{"c.wasm", "1"}, zipEntry{"c.wasm", "2"}), 0, errcode.IO, "more than once"},
		{"oversize payload", makeZip(t, manifest, zipEntry{"c.wasm", strings.Repeat("x", 65)}), 64, errcode.IO,
			"zip entry 'c.wasm' exceeds the 64-byte decompression ceiling"},
		{"oversize manifest", makeZip(t, manifest), 8, errcode.IO, "decompression ceiling"},
		{"manifest not utf-8", makeZip(t, zipEntry{"murmur.yaml", "name: \xff\n"}), 0, errcode.IO, "not valid UTF-8"},
		{"native binary missing", makeZip(t, zipEntry{"murmur.yaml", toolYAML + "implementation: native\n"}, zipEntry{"bin/other", "x"}), 0, errcode.IO,
			"failed to read native binary at 'bin/echo'"},
		{"skill.md missing", makeZip(t, zipEntry{"murmur.yaml", "name: echo\nversion: '1'\nruntime: skill\n"}, zipEntry{"SKILL.md", "x"}), 0, errcode.IO,
			"skill.md not found or unreadable at archive root"},
		{"manifest missing runtime", makeZip(t, zipEntry{"murmur.yaml", "name: echo\nversion: '1'\n"}), 0, errcode.ManifestMissingField, "'runtime'"},
		{"manifest bad yaml", makeZip(t, zipEntry{"murmur.yaml", "name: [\n"}), 0, errcode.ManifestSyntax, "YAML syntax error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ReadArchive("echo", "1.0.0", tt.zip, tt.max)
			if got := errcode.Code(err); got != tt.code {
				t.Fatalf("ReadArchive = %+v, %v; want code %s", a, err, tt.code)
			}
			if !strings.Contains(err.Error(), tt.msgPart) {
				t.Errorf("error %q does not mention %q", err, tt.msgPart)
			}
			if tt.code == errcode.IO && !strings.HasPrefix(err.Error(), "failed to read artifact archive for echo@1.0.0: ") {
				t.Errorf("error %q lacks murmur's prefix", err)
			}
		})
	}
}

func TestParseArtifactManifest(t *testing.T) {
	tests := []struct {
		name, src string
		want      ArtifactManifest
	}{
		{"defaults", toolYAML, ArtifactManifest{Name: "echo", Version: "1.0.0", Runtime: "tool", Implementation: "wasm",
			RequiresFiles: []string{}, InputSchema: json.RawMessage(DefaultInputSchema)}},
		{"skill defaults", "name: s\nversion: '2'\nruntime: skill\ninput_schema: {type: object, required: [q]}\n",
			ArtifactManifest{Name: "s", Version: "2", Runtime: "skill", Implementation: "wasm",
				RequiresFiles: []string{"skill.md"}, InputSchema: json.RawMessage(DefaultInputSchema)}},
		{"schema as json string", toolYAML + "description: Echoes.\ntags: [a, 1, b]\nrequires_files: []\ninput_schema: '{ \"type\": \"object\", \"properties\": {\"q\": {\"type\": \"string\"}} }'\n",
			ArtifactManifest{Name: "echo", Version: "1.0.0", Runtime: "tool", Implementation: "wasm", Description: "Echoes.",
				Tags: []string{"a", "b"}, RequiresFiles: []string{},
				InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)}},
		{"legacy input as mapping", toolYAML + "implementation: native\nrequires_files: [bin/echo]\ninput:\n  type: object\n  properties: {n: {type: integer}}\n",
			ArtifactManifest{Name: "echo", Version: "1.0.0", Runtime: "tool", Implementation: "native",
				RequiresFiles: []string{"bin/echo"}, InputSchema: json.RawMessage(`{"properties":{"n":{"type":"integer"}},"type":"object"}`)}},
		{"invalid schema falls back", toolYAML + "input_schema: 'not json'\nexecution: Wasm\n",
			ArtifactManifest{Name: "echo", Version: "1.0.0", Runtime: "tool", Implementation: "wasm", Execution: ExecutionWasm,
				RequiresFiles: []string{}, InputSchema: json.RawMessage(DefaultInputSchema)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseArtifactManifest("murmur.yaml", []byte(tt.src))
			if err != nil {
				t.Fatalf("ParseArtifactManifest: %v", err)
			}
			if diff := cmp.Diff(&tt.want, got); diff != "" {
				t.Errorf("manifest mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseArtifactManifestErrors(t *testing.T) {
	tests := []struct {
		name, src, code string
	}{
		{"empty", "", errcode.ManifestInvalid},
		{"list root", "- a\n", errcode.ManifestInvalid},
		{"missing name", "version: '1'\nruntime: tool\n", errcode.ManifestMissingField},
		{"version is a number", "name: a\nversion: 1.10\nruntime: tool\n", errcode.ManifestInvalid},
		{"runtime is null", "name: a\nversion: '1'\nruntime: ~\n", errcode.ManifestInvalid},
		{"bad execution", toolYAML + "execution: docker\n", errcode.ManifestInvalid},
		{"requires_files not a list", toolYAML + "requires_files: a.wasm\n", errcode.ManifestInvalid},
		{"requires_files number", toolYAML + "requires_files: [1]\n", errcode.ManifestInvalid},
		{"duplicate key", toolYAML + "name: b\n", errcode.ManifestSyntax},
		{"bad yaml", "name: 'a\n", errcode.ManifestSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseArtifactManifest("murmur.yaml", []byte(tt.src))
			if got := errcode.Code(err); got != tt.code {
				t.Errorf("code = %q, want %q (error: %v)", got, tt.code, err)
			}
		})
	}
}
