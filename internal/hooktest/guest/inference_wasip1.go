//go:build wasip1

package main

import (
	"encoding/json"
	"unsafe"
)

//go:wasmimport murmur_eval run_inference
func runInference(ptr unsafe.Pointer, n uint32) uint32

//go:wasmimport murmur_eval run_inference_result
func runInferenceResult(ptr unsafe.Pointer)

// askModel calls run_inference (docs/hooks.md) and returns the decoded
// response: {"text", ...} or {"error"}.
func askModel(req any) map[string]any {
	b, _ := json.Marshal(req)
	n := runInference(unsafe.Pointer(unsafe.SliceData(b)), uint32(len(b)))
	out := make([]byte, n)
	if n > 0 {
		runInferenceResult(unsafe.Pointer(unsafe.SliceData(out)))
	}
	var resp map[string]any
	_ = json.Unmarshal(out, &resp)
	return resp
}
