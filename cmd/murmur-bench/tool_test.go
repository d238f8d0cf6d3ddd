package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/murmur-nexus/murmur-eval/internal/tooltest"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// TestOKWasmMatchesWat assembles tool/ok.wat with WABT's wat2wasm and
// compares it with the committed tool/ok.wasm byte for byte. It needs
// wat2wasm (Debian: apt-get install wabt; internal/tooltest).
func TestOKWasmMatchesWat(t *testing.T) {
	wat2wasm := tooltest.Require(t, "wat2wasm")
	out := filepath.Join(t.TempDir(), "ok.wasm")
	if b, err := exec.Command(wat2wasm, filepath.Join("tool", "ok.wat"), "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, okWasm) {
		t.Errorf("wat2wasm tool/ok.wat gives %d bytes that differ from tool/ok.wasm (%d bytes): reassemble it\n got %x\nwant %x", len(got), len(okWasm), got, okWasm)
	}
}

// TestOKToolAnswers runs the committed module in murmur-eval's sandbox:
// it must answer a murmur tool call with status passed and data "ok".
func TestOKToolAnswers(t *testing.T) {
	ctx := context.Background()
	e, err := sandbox.NewEngine(ctx, sandbox.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	m, err := e.Compile(ctx, "ok", okWasm)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	out, err := e.Run(ctx, m, sandbox.Call{Dir: t.TempDir(), Stdin: []byte(`{"data":"{\"q\":\"x\"}","log_path":null}`)})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got, want := string(out.Stdout), `{"status":"passed","data":"ok"}`+"\n"; got != want || out.ExitCode != 0 {
		t.Errorf("stdout %q, exit %d; want %q, exit 0", got, out.ExitCode, want)
	}
	if r := sandbox.ParseToolResult("ok", out); r.Status != sandbox.StatusPassed || r.Text() != "ok" {
		t.Errorf("ParseToolResult = %+v, want passed with data ok", r)
	}
}

// TestMedian checks the harness's median on odd and even counts.
func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
