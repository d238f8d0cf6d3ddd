package componenttest

import (
	"encoding/json"
	"testing"
)

// Result is a tool-result as the reference (jco transpile +
// @bytecodealliance/preview2-shim on Node) gives it; Trap is set when the
// call threw.
type Result struct {
	Status   string      `json:"status"`
	Summary  *string     `json:"summary"`
	Data     *string     `json:"data"`
	Metadata [][2]string `json:"metadata"`
	Trap     bool        `json:"trap"`
}

// Text is what murmur shows the model of r: data, else summary, else
// "tool returned no data".
func (r Result) Text() string {
	switch {
	case r.Data != nil:
		return *r.Data
	case r.Summary != nil:
		return *r.Summary
	}
	return "tool returned no data"
}

// Reference runs the tool component wasm on Node through jco transpile and
// sandbox/component/testdata/difftest.mjs, the reference sandbox/component's
// differential test compares the Go host with, once per input (its data;
// nil for none), with preopen as ".". It returns one Result per input.
func Reference(t testing.TB, wasm []byte, preopen string, inputs []*string) []Result {
	t.Helper()
	lines := make([][]byte, len(inputs))
	for i, in := range inputs {
		lines[i], _ = json.Marshal(in)
	}
	var res []Result
	for _, l := range RunNode(t, wasm, "tool", "difftest.mjs", []string{preopen}, lines) {
		var r Result
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("reference result %q: %v", l, err)
		}
		res = append(res, r)
	}
	return res
}
