package component

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

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
			t.Errorf("%s in %s: got allowed %v, want %v", tt.name, tt.w.Name(), ok, tt.ok)
		}
	}
}

// TestLinkImports checks the main module's imports against the host:
// interface without version, function name, flat signature.
func TestLinkImports(t *testing.T) {
	if _, err := exec.LookPath("wat2wasm"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("wat2wasm is missing")
		}
		t.Skip("wat2wasm is missing")
	}
	tests := []struct {
		name, imp string
		ok        bool
	}{
		{"known", `(import "wasi:cli/stdout@0.2.0" "get-stdout" (func (result i32)))`, true},
		{"other patch version", `(import "wasi:cli/stdout@0.2.9" "get-stdout" (func (result i32)))`, true},
		{"wrong signature", `(import "wasi:cli/stdout@0.2.0" "get-stdout" (func (param i32) (result i32)))`, false},
		{"unknown function", `(import "wasi:cli/stdout@0.2.0" "get-stdout-twice" (func (result i32)))`, false},
		{"unknown interface", `(import "wasi:keyvalue/store@0.2.0" "get" (func))`, false},
		{"sockets", `(import "wasi:sockets/tcp@0.2.0" "[method]tcp-socket.connect" (func))`, false},
		{"preview 1", `(import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))`, false},
		{"memory import", `(import "wasi:cli/stdout@0.2.0" "memory" (memory 1))`, false},
		{"http built per import", `(import "wasi:http/types@0.2.0" "[method]incoming-response.status" (func (param i32) (result i32)))`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			wat := filepath.Join(dir, "m.wat")
			if err := os.WriteFile(wat, []byte("(module "+tt.imp+")"), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "m.wasm")
			if b, err := exec.Command("wat2wasm", wat, "-o", out).CombinedOutput(); err != nil {
				t.Fatalf("wat2wasm: %v %s", err, b)
			}
			wasm, _ := os.ReadFile(out)
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
