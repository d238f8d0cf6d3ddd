package sandbox

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// HostModule is the import module of murmur-eval's own host functions,
// which a guest may import besides WASI preview 1 (docs/hooks.md):
//
//	run_inference(request_ptr, request_len i32) -> response_len i32
//	run_inference_result(response_ptr i32)
//
// run_inference hands the host a JSON request and returns the length of
// the JSON response, which run_inference_result then copies into guest
// memory the guest allocated for it.
const HostModule = "murmur_eval"

// HostCalls answers one Run's host calls. Only hooks have one; a tool that
// imports HostModule gets an error response.
type HostCalls interface {
	// RunInference answers a run_inference request with a JSON response,
	// {"error": "..."} on failure. ctx is the call's context (its deadline).
	RunInference(ctx context.Context, request []byte) []byte
}

type hostKey struct{}

// hostState is one Run's: its Host and the response not yet copied out.
type hostState struct {
	host    HostCalls
	pending []byte
}

func withHost(ctx context.Context, h HostCalls) context.Context {
	return context.WithValue(ctx, hostKey{}, &hostState{host: h})
}

func instantiateHostModule(ctx context.Context, rt wazero.Runtime) error {
	_, err := rt.NewHostModuleBuilder(HostModule).
		NewFunctionBuilder().WithFunc(runInference).Export("run_inference").
		NewFunctionBuilder().WithFunc(runInferenceResult).Export("run_inference_result").
		Instantiate(ctx)
	return err
}

func runInference(ctx context.Context, m api.Module, ptr, n uint32) uint32 {
	st, _ := ctx.Value(hostKey{}).(*hostState)
	if st == nil {
		return 0
	}
	req, ok := m.Memory().Read(ptr, n)
	switch {
	case !ok:
		st.pending = errorJSON("run_inference: the request is outside the guest's memory")
	case st.host == nil:
		st.pending = errorJSON("run-inference is available to hooks only")
	default:
		st.pending = st.host.RunInference(ctx, bytes.Clone(req))
	}
	return uint32(len(st.pending))
}

func runInferenceResult(ctx context.Context, m api.Module, ptr uint32) {
	st, _ := ctx.Value(hostKey{}).(*hostState)
	if st == nil || st.pending == nil {
		return
	}
	if !m.Memory().Write(ptr, st.pending) {
		panic("run_inference_result: the buffer is outside the guest's memory") // traps the guest
	}
	st.pending = nil
}

func errorJSON(msg string) []byte {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return b
}
