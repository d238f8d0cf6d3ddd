package component

import (
	"context"
	"testing"

	"github.com/tetratelabs/wazero/api"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func TestAllowedImport(t *testing.T) {
	tests := []struct {
		name string
		w    World
		ok   bool
	}{
		{"wasi:cli/stdout@0.2.0", WorldTool, true},
		{"wasi:cli/stdout@0.2.12", WorldTool, true},
		{"wasi:http/outgoing-handler@0.2.12", WorldDriver, true},
		{"wasi:cli/stdout@0.3.0", WorldTool, false},
		{"wasi:cli/stdout", WorldTool, false},
		{"wasi:sockets/tcp@0.2.0", WorldTool, false},
		{"wasi:keyvalue/store@0.2.0", WorldTool, false},
		{"murmur:task/task@0.1.0", WorldTool, true},
		{"murmur:task/task@0.1.0", WorldDriver, false},
		{"murmur:task/task@0.2.0", WorldTool, false},
		{"murmur:tool-registry/invoke@0.1.0", WorldCapsule, true},
		{"murmur:tool-registry/invoke@0.1.0", WorldTool, false},
	}
	for _, tt := range tests {
		if _, ok := tt.w.allowedImport(tt.name); ok != tt.ok {
			t.Errorf("%s in %s: got allowed %v, want %v", tt.name, tt.w.name(), ok, tt.ok)
		}
	}
}

// TestLinkImports checks the main module's imports against the host:
// interface without version, function name, flat signature. Each module
// is encoded here (coreModuleImporting), so the test needs no wat2wasm.
func TestLinkImports(t *testing.T) {
	fn := func(params []api.ValueType, results ...api.ValueType) coreImport {
		return coreImport{params: params, results: results}
	}
	tests := []struct {
		name, module, field string
		imp                 coreImport
		ok                  bool
	}{
		{"known", "wasi:cli/stdout@0.2.0", "get-stdout", fn(nil, i32), true},
		{"other patch version", "wasi:cli/stdout@0.2.9", "get-stdout", fn(nil, i32), true},
		{"wrong signature", "wasi:cli/stdout@0.2.0", "get-stdout", fn([]api.ValueType{i32}, i32), false},
		{"unknown function", "wasi:cli/stdout@0.2.0", "get-stdout-twice", fn(nil, i32), false},
		{"unknown interface", "wasi:keyvalue/store@0.2.0", "get", fn(nil), false},
		{"sockets", "wasi:sockets/tcp@0.2.0", "[method]tcp-socket.connect", fn(nil), false},
		{"preview 1", "wasi_snapshot_preview1", "fd_write", fn([]api.ValueType{i32, i32, i32, i32}, i32), false},
		{"memory import", "wasi:cli/stdout@0.2.0", "memory", coreImport{memory: true}, false},
		{"http built per import", "wasi:http/types@0.2.0", "[method]incoming-response.status", fn([]api.ValueType{i32}, i32), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wasm := coreModuleImporting(tt.module, tt.field, tt.imp)
			rt := newRuntime(t)
			cm, err := rt.CompileModule(context.Background(), wasm)
			if err != nil {
				t.Fatal(err)
			}
			err = linkImports(context.Background(), rt, cm, WorldDriver)
			if tt.ok && err != nil {
				t.Fatalf("got %v, want it linked", err)
			}
			if !tt.ok && !errcode.Is(err, errcode.RunCapsule) {
				t.Fatalf("got %v, want E-RUN-001", err)
			}
		})
	}
}

// coreImport is one import of a core module: a function of this flat
// signature, or a memory of one page.
type coreImport struct {
	params, results []api.ValueType
	memory          bool
}

// coreModuleImporting encodes a core module whose only content is one
// import, module.field, as wat2wasm assembles (module (import ...)).
func coreModuleImporting(module, field string, imp coreImport) []byte {
	vec := func(items ...[]byte) []byte {
		out := []byte{byte(len(items))}
		for _, it := range items {
			out = append(out, it...)
		}
		return out
	}
	name := func(s string) []byte { return append([]byte{byte(len(s))}, s...) }
	section := func(id byte, body []byte) []byte { return append([]byte{id, byte(len(body))}, body...) }
	types := func(ts []api.ValueType) []byte {
		var items [][]byte
		for _, v := range ts {
			items = append(items, []byte{v})
		}
		return vec(items...)
	}
	out := []byte("\x00asm\x01\x00\x00\x00")
	desc := []byte{0x02, 0x00, 0x01} // memory, min 1 page
	if !imp.memory {
		fnType := append(append([]byte{0x60}, types(imp.params)...), types(imp.results)...)
		out = append(out, section(1, vec(fnType))...)
		desc = []byte{0x00, 0x00} // function of type 0
	}
	entry := append(append(name(module), name(field)...), desc...)
	return append(out, section(2, vec(entry))...)
}

func TestCompileRefusesWrongWorld(t *testing.T) {
	rt := newRuntime(t)
	b, err := Decode(fixture(t, "tool"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := validate(b.c, WorldCapsule); !errcode.Is(err, errcode.RunCapsule) {
		t.Fatalf("tool as capsule: got %v, want E-RUN-001", err)
	}
	// A driver may not import murmur:task/task... but the tool fixture
	// imports only chunks, which drivers may; an unknown world has none.
	if _, err := validate(b.c, World(99)); !errcode.Is(err, errcode.RunCapsule) {
		t.Fatalf("chunks outside the world: got %v, want E-RUN-001", err)
	}
	_ = rt
}
