package sandbox

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func TestCompileRefuses(t *testing.T) {
	unreachable := []byte{0x00}
	tests := []struct {
		name     string
		wasm     []byte
		memLimit uint64
		code     string
		kind     Kind
	}{
		{"empty", nil, 0, errcode.RunCapsule, ""},
		{"shell script", []byte("#!/bin/sh\necho hello\n"), 0, errcode.RunCapsule, ""},
		{"elf binary", []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00"), 0, errcode.RunCapsule, ""},
		{"truncated header", []byte("\x00asm\x01\x00"), 0, errcode.RunCapsule, ""},
		{"component", []byte("\x00asm\x0d\x00\x01\x00\x00\x00\x00"), 0, errcode.RunCapsule, ""},
		{"old component draft", []byte("\x00asm\x0a\x00\x01\x00"), 0, errcode.RunCapsule, ""},
		{"core version 2", []byte("\x00asm\x02\x00\x00\x00"), 0, errcode.RunCapsule, ""},
		{"garbage after header", []byte("\x00asm\x01\x00\x00\x00\xff\xff\xff"), 0, errcode.RunCapsule, ""},
		{"import from env", coreModule([]wasmImport{{"env", "foo", 0}}, -1, "_start", unreachable...), 0,
			errcode.RunWASIImport, ""},
		{"unknown wasi function", coreModule([]wasmImport{{"wasi_snapshot_preview1", "no_such_call", 0}}, -1, "_start"), 0,
			errcode.RunWASIImport, ""},
		{"wasi function with wrong signature", coreModule([]wasmImport{{"wasi_snapshot_preview1", "proc_exit", 0}}, -1, "_start"), 0,
			errcode.RunWASIImport, ""},
		{"wasi preview 2 import", coreModule([]wasmImport{{"wasi:cli/environment@0.2.0", "get-environment", 0}}, -1, "_start"), 0,
			errcode.RunWASIImport, ""},
		{"no _start (reactor)", coreModule(nil, -1, "_initialize"), 0, errcode.RunCapsule, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEngine(t, Config{CacheDir: t.TempDir(), MemoryLimitBytes: tt.memLimit})
			m, err := e.Compile(context.Background(), "tool", tt.wasm)
			if err == nil {
				t.Fatalf("Compile = %v, nil; want error %s", m, tt.code)
			}
			wantCode(t, err, tt.code)
			wantKind(t, err, tt.kind)
		})
	}
}

func TestCompileComponentHint(t *testing.T) {
	e := newTestEngine(t, Config{CacheDir: t.TempDir()})
	_, err := e.Compile(context.Background(), "tool", []byte("\x00asm\x0d\x00\x01\x00"))
	wantCode(t, err, errcode.RunCapsule)
	var ee *errcode.Error
	if !errors.As(err, &ee) {
		t.Fatalf("error %T is not *errcode.Error", err)
	}
	// The hint is the user-facing contract: it must name the fix.
	for _, want := range []string{"GOOS=wasip1 GOARCH=wasm", "wasm32-wasip1"} {
		if !strings.Contains(ee.Hint, want) {
			t.Errorf("hint %q does not mention %q", ee.Hint, want)
		}
	}
}

func TestCompileAcceptsMinimalModules(t *testing.T) {
	e := newTestEngine(t, Config{CacheDir: t.TempDir(), MemoryLimitBytes: 1 << 20})
	for name, wasm := range map[string][]byte{
		"no imports":          coreModule(nil, 1, "_start"),
		"wasi proc_exit":      coreModule([]wasmImport{{"wasi_snapshot_preview1", "proc_exit", 1}}, -1, "_start"),
		"memory at the limit": coreModule(nil, 16, "_start"),
	} {
		if _, err := e.Compile(context.Background(), name, wasm); err != nil {
			t.Errorf("Compile(%s) = %v, want nil", name, err)
		}
	}
}
