package sandbox

import (
	"context"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestHostModuleImports: a guest may import murmur-eval's own host
// functions with their signatures, and nothing else outside WASI.
func TestHostModuleImports(t *testing.T) {
	e := newTestEngine(t, Config{CacheDir: t.TempDir()})
	ctx := context.Background()
	ok := coreModule([]wasmImport{{HostModule, "run_inference_result", 1}}, -1, "_start")
	if _, err := e.Compile(ctx, "ok", ok); err != nil {
		t.Errorf("importing %s.run_inference_result: %v", HostModule, err)
	}
	wrongSig := coreModule([]wasmImport{{HostModule, "run_inference", 1}}, -1, "_start")
	if _, err := e.Compile(ctx, "bad", wrongSig); errcode.Code(err) != errcode.RunWASIImport {
		t.Errorf("importing run_inference with the wrong signature: %v, want %s", err, errcode.RunWASIImport)
	}
	unknown := coreModule([]wasmImport{{HostModule, "run_tool", 0}}, -1, "_start")
	if _, err := e.Compile(ctx, "bad", unknown); errcode.Code(err) != errcode.RunWASIImport {
		t.Errorf("importing %s.run_tool: %v, want %s", HostModule, err, errcode.RunWASIImport)
	}
}
