package component

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/murmur-nexus/murmur-eval/sandbox/component/componenttest"
)

// hookRef is one lifecycle call's answer as hookdiff.mjs prints it.
type hookRef struct {
	Arm   string      `json:"arm,omitempty"`
	Text  *string     `json:"text,omitempty"`
	Pairs [][2]string `json:"pairs,omitempty"`
	Err   *string     `json:"err,omitempty"`
	Trap  bool        `json:"trap,omitempty"`
}

// recordJSON is an event record as hookdiff.mjs reads it: kebab-case
// fields, u64 as numbers (made BigInt there), none as null.
func recordJSON(event string, fields []Value) map[string]any {
	schema, _, _ := hookSchema(event)
	m := map[string]any{}
	for i, f := range schema {
		v := fields[i]
		var x any
		switch v.kind {
		case kString:
			x = v.s
		case kU32, kU64:
			x = v.n
		case kS32:
			x = int32(uint32(v.n))
		case kF64:
			x = v.f
		case kOptString:
			if v.opt != nil {
				x = *v.opt
			}
		case kStrings:
			x = append([]string{}, v.strs...)
		case kMessages:
			ms := []map[string]string{}
			for _, msg := range v.msgs {
				ms = append(ms, map[string]string{"role": msg.Role, "content": msg.Content})
			}
			x = ms
		}
		m[f.Name] = x
	}
	return m
}

// TestDifferentialJcoHook makes the same lifecycle calls, in order on one
// instance, on the hook fixture transpiled by jco (Node, preview2-shim,
// testdata/inference.mjs for run-inference) and on this host (a fake
// inference answering the same), and compares the answers as JSON. Both
// sides keep the instance's memory between calls (the counts agree) and
// both trap in on-shell; after that trap this host, as wasmtime, refuses
// the instance, and the reference is not asked.
func TestDifferentialJcoHook(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: transpiles and starts Node")
	}
	ev := hookEvents()
	calls := []string{HookOnStage, HookOnSessionStart, HookOnTaskStart, HookOnInference, HookOnToolCall,
		HookOnCompaction, HookOnTaskEnd, HookOnTaskEnd, HookOnSessionEnd, HookOnShell}
	lines := make([][]byte, len(calls))
	for i, fn := range calls {
		b, err := json.Marshal(map[string]any{"fn": fn, "event": recordJSON(fn, ev[fn])})
		if err != nil {
			t.Fatal(err)
		}
		lines[i] = b
	}
	want := componenttest.RunNode(t, fixture(t, "hook"), "hook", "hookdiff.mjs", nil, lines)

	rt := newRuntime(t)
	c := compileFixture(t, rt, "hook", WorldHook)
	ctx := context.Background()
	h, err := c.NewHookInstance(ctx, Env{Name: "hook", Inference: &fakeInference{}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	for i, fn := range calls {
		o, err := h.Call(ctx, fn, ev[fn])
		var got hookRef
		var he *HookError
		switch {
		case errors.As(err, &he):
			got.Err = &he.Msg
		case err != nil:
			got.Trap = true
		default:
			got.Arm = o.Arm
			if o.Arm == "artifact" || o.Arm == "reopen-task" {
				got.Text = &o.Text
			}
			for _, m := range o.Messages {
				got.Pairs = append(got.Pairs, [2]string{m.Role, m.Content})
			}
			for _, m := range o.Manifests {
				got.Pairs = append(got.Pairs, [2]string{m.BinaryName, m.Content})
			}
		}
		var ref hookRef
		if err := json.Unmarshal([]byte(want[i]), &ref); err != nil {
			t.Fatal(err)
		}
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(ref)
		if !bytes.Equal(gb, wb) {
			t.Errorf("call %d %s: got %s, jco gives %s (host error %v)", i, fn, gb, wb, err)
		}
	}
}
