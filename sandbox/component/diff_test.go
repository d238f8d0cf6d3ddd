package component

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-nexus/murmur-eval/sandbox/component/componenttest"
)

// jcoDiffers lists the inputs where preview2-shim and wasmtime (murmur's
// host) disagree; this host follows wasmtime, and the test checks that.
var jcoDiffers = map[string]struct{ ours, reason string }{
	// wasmtime's file stream reports closed when a read finds end of file;
	// preview2-shim returns an empty list first. Rust's std treats both as
	// end of file, so murmur's tools cannot tell.
	"tool:fempty.txt": {`{"status":"error","summary":null,"data":null,"dataPath":null,"truncated":false,"metadata":[]}`,
		"end of file is stream-error.closed"},
	// wasmtime refuses invalid UTF-8 when lifting a string; preview2-shim's
	// TextDecoder replaces it with U+FFFD.
	// preview2-shim follows a symlink out of the preopen; wasmtime (cap-std)
	// and this host refuse it with not-permitted.
	"probe:dout": {`{"status":"failed","summary":null,"data":"` + "`" + `","dataPath":null,"truncated":false,"metadata":[]}`,
		"a symlink leading out of the preopen is not followed"},
	"tool:u": {`{"trap":true,"summary":null,"data":null,"dataPath":null,"truncated":false,"metadata":null}`,
		"invalid UTF-8 is a trap"},
}

// refResult is a tool-result as difftest.mjs prints it.
type refResult struct {
	Trap      bool        `json:"trap,omitempty"`
	Status    string      `json:"status,omitempty"`
	Summary   *string     `json:"summary"`
	Data      *string     `json:"data"`
	DataPath  *string     `json:"dataPath"`
	Truncated bool        `json:"truncated"`
	Metadata  [][2]string `json:"metadata"`
}

// TestDifferentialJco runs the tool fixture through `jco transpile` +
// preview2-shim on Node and through this host, and compares the results
// byte for byte (as JSON). Traps must be traps on both sides.
func TestDifferentialJco(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: transpiles and starts Node")
	}
	work := t.TempDir()
	for name, body := range map[string]string{"in.txt": "inside\n", "utf8.txt": "héllo ✓", "empty.txt": ""} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(work, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	inputs := []*string{nil, str(""), str("ehello"), str("e{\"a\":[1,2]}"), str("eé✓"), str("fin.txt"),
		str("futf8.txt"), str("fempty.txt"), str("fnope"), str("f../x"), str("fsub/../in.txt"),
		str("c chunk"), str("u"), str("t"), str("p"), str("x")}
	differential(t, "tool", work, inputs)
}

// TestDifferentialJcoProbe compares the probe fixture's deterministic
// probes (not environment or arguments, which Node takes from its process,
// nor exit, which ends the Node process).
func TestDifferentialJcoProbe(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: transpiles and starts Node")
	}
	inputs := []*string{str("w"), str("z"), str("k"), str("r"), str("sa.txt"), str("snope"), str("s../etc"),
		str("hsub/y"), str("t"), str("dsub"), str("dout"), str("iname?"), str("q")}
	differential(t, "probe", probeDir(t), inputs)
}

// TestDifferentialJcoAdapter compares the preview-1 fixture wrapped with
// jco's reactor adapter.
func TestDifferentialJcoAdapter(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: transpiles and starts Node")
	}
	inputs := []*string{str("ehello"), str("fa.txt"), str("fsub/x"), str("fnope"), str("f../x"), str("q")}
	differential(t, "p1tool", probeDir(t), inputs)
}

// differential runs fixture name on Node and on this host with
// the same preopen and inputs and compares the results.
func differential(t *testing.T, name, work string, inputs []*string) {
	differentialEnv(t, name, work, inputs, Env{})
}

// differentialEnv is differential with env for this host's calls (Root is
// set to work).
func differentialEnv(t *testing.T, name, work string, inputs []*string, env Env) {
	lines := make([][]byte, len(inputs))
	for i, in := range inputs {
		lines[i], _ = json.Marshal(in)
	}
	want := componenttest.RunNode(t, fixture(t, name), name, "difftest.mjs", []string{work}, lines)

	rt := newRuntime(t)
	c := compileFixture(t, rt, name, WorldTool)
	root, err := os.OpenRoot(work)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	env.Root = root
	for i, in := range inputs {
		r, err := c.RunTool(context.Background(), env, ToolInput{Data: in})
		got := refResult{Trap: true}
		if err == nil {
			got = refResult{Status: r.Status, Summary: r.Summary, Data: r.Data, DataPath: r.DataPath, Truncated: r.Truncated, Metadata: r.Metadata}
			if got.Metadata == nil {
				got.Metadata = [][2]string{}
			}
		}
		b, _ := json.Marshal(got)
		if in != nil {
			if why, ok := jcoDiffers[name+":"+*in]; ok {
				if string(b) != why.ours {
					t.Errorf("input %q: got %s, want %s (%s)", *in, b, why.ours, why.reason)
				}
				continue
			}
		}
		// Normalise the reference through the same struct.
		var ref refResult
		if err := json.Unmarshal([]byte(want[i]), &ref); err != nil {
			t.Fatal(err)
		}
		if ref.Metadata == nil && !ref.Trap {
			ref.Metadata = [][2]string{}
		}
		wb, _ := json.Marshal(ref)
		if !bytes.Equal(b, wb) {
			name := "<none>"
			if in != nil {
				name = *in
			}
			t.Errorf("input %q: got %s, jco gives %s (host error %v)", name, b, wb, err)
		}
	}
}
