package component

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// commandWithMemory is a WASI command module (an empty _start) whose
// exported memory starts at minPages pages.
func commandWithMemory(minPages uint32) []byte {
	mem := binary.AppendUvarint([]byte{1, 0}, uint64(minPages)) // one memory, min only
	wasm := []byte("\x00asm\x01\x00\x00\x00" +
		"\x01\x04\x01\x60\x00\x00" + // type: func()
		"\x03\x02\x01\x00") // one function
	wasm = append(append(wasm, 5, byte(len(mem))), mem...)
	wasm = append(wasm, "\x07\x13\x02\x06_start\x00\x00\x06memory\x02\x00"+ // exports
		"\x0a\x04\x01\x02\x00\x0b"...) // the empty body
	return wasm
}

// TestInitialMemoryOverTheLimitBothPaths: a tool whose initial memory is
// over capabilities.limits.memory_bytes fails its call the same way as a
// preview-1 core module and as a component (one limiter, murmur's words),
// the core module no longer refused at Compile with its own text.
func TestInitialMemoryOverTheLimitBothPaths(t *testing.T) {
	ctx := context.Background()
	const limit = 4096
	rt := newRuntime(t)
	tool := compileFixture(t, rt, "tool", WorldTool)
	mem, ok := tool.main.ExportedMemories()["memory"]
	if !ok || uint64(mem.Min())*wasmPage <= limit {
		t.Fatalf("the tool fixture's initial memory (%v) is not over %d bytes", mem, limit)
	}
	_, compErr := tool.RunTool(ctx, Env{Name: "small", MemoryLimitBytes: limit}, ToolInput{Data: str("ehi")})

	e, err := sandbox.NewEngine(ctx, sandbox.Config{CacheDir: t.TempDir(), MemoryLimitBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	m, err := e.Compile(ctx, "small", commandWithMemory(mem.Min()))
	if err != nil {
		t.Fatalf("Compile refused the core module: %v", err)
	}
	_, coreErr := e.Run(ctx, m, sandbox.Call{})

	for path, err := range map[string]error{"component": compErr, "core module": coreErr} {
		if !errcode.Is(err, errcode.RunCapsule) || sandbox.KindOf(err) != sandbox.ErrMemory {
			t.Errorf("%s: got %v (kind %q), want E-RUN-001 memory", path, err, sandbox.KindOf(err))
		}
	}
	if compErr == nil || coreErr == nil || compErr.Error() != coreErr.Error() {
		t.Errorf("the paths differ:\ncomponent:   %v\ncore module: %v", compErr, coreErr)
	}
}
