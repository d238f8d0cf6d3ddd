package wasmcheck_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/murmur-nexus/murmur-eval/sandbox/component"
)

// TestReferenceComponentsCompile decodes and compiles murmur's own
// components, when the machine has them, the way Verify does: Check now
// stands before every core module's compilation and must let them through.
func TestReferenceComponentsCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles large components")
	}
	dir := os.Getenv("MURMUR_REFERENCE_COMPONENTS")
	if dir == "" {
		dir = "/work/shared/reference/murmur-components"
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.wasm"))
	if len(files) == 0 {
		t.Skipf("no murmur components in %s", dir)
	}
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler().WithCloseOnContextDone(true))
	defer rt.Close(ctx)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			bin, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			w := component.WorldTool
			if strings.Contains(filepath.Base(f), "driver") {
				w = component.WorldDriver
			}
			b, err := component.Decode(bin)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			c, err := component.Compile(ctx, rt, b, w)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			_ = c
		})
	}
}
