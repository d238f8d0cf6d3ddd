package component

import (
	"context"

	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/abi"
)

// addMurmur adds murmur's own host interfaces.
func addMurmur(all map[string]iface) {
	chunk := func(thinking bool) func(context.Context, *state, []uint64) {
		return func(ctx context.Context, s *state, st []uint64) {
			s.chunks = append(s.chunks, Chunk{Thinking: thinking, Text: s.Str(uint32(st[0]), uint32(st[1]))})
		}
	}
	all["murmur:text/chunks"] = iface{
		"emit-chunk":          {abi.Sig(i32, i32), nil, chunk(false)},
		"emit-thinking-chunk": {abi.Sig(i32, i32), nil, chunk(true)},
	}
	// An eval case is never an A2A task, so there is nobody to ask: the
	// call stops the guest, as murmur's host does outside a task.
	all["murmur:task/task"] = iface{
		"request-input": {abi.Sig(i32, i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			abi.Trapf("request-input is not available outside an A2A task context")
		}},
	}
	all["murmur:runtime/inference"] = iface{
		"run-inference": {abi.Sig(i32, i32, i32, i32, i32, i32, i32, i32, i32), nil, runInference},
	}
	all["murmur:tool-registry/invoke"] = iface{
		"invoke": {abi.Sig(i32, i32, i32, i32, i32, i32, i32, i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			name := s.Str(uint32(st[0]), uint32(st[1]))
			in := ToolInput{Data: s.LiftOptionArg(st[2], st[3], st[4]), LogPath: s.LiftOptionArg(st[5], st[6], st[7])}
			ret := uint32(st[8])
			if ret%4 != 0 {
				abi.Trapf("invoke result pointer %#x is not 4-byte aligned", ret)
			}
			var res ToolResult
			var err error = errNoRegistry
			if s.env.Registry != nil {
				res, err = s.env.Registry.Invoke(ctx, name, in)
			}
			if err != nil {
				p, n := s.PutString(ctx, err.Error())
				s.U8(ret, 1)
				s.U32(ret+4, p)
				s.U32(ret+8, n)
				return
			}
			s.U8(ret, 0)
			s.storeResult(ctx, ret+4, res)
		}},
	}
}

type registryError string

func (e registryError) Error() string { return string(e) }

const errNoRegistry = registryError("no tools are available to this capsule")

// errNoInference is murmur's run-inference answer without a driver.
const errNoInference = registryError("inference driver is not configured; add inference.driver.artifact to murmur.yaml")

// runInference is murmur:runtime/inference's run-inference:
// (messages ptr, len, system-prompt option, model option, result pointer).
// The result<inference-response, string> is laid out with align 8: the tag
// at 0; ok: text at 8, model-used at 16, input-tokens at 24, output-tokens
// at 32; err: the string at 8.
func runInference(ctx context.Context, s *state, st []uint64) {
	req := InferenceRequest{Messages: s.liftMessagesArg(uint32(st[0]), uint32(st[1])),
		SystemPrompt: s.LiftOptionArg(st[2], st[3], st[4]), Model: s.LiftOptionArg(st[5], st[6], st[7])}
	ret := uint32(st[8])
	if ret%8 != 0 {
		abi.Trapf("run-inference result pointer %#x is not 8-byte aligned", ret)
	}
	var res InferenceResponse
	var err error = errNoInference
	if s.env.Inference != nil {
		res, err = s.env.Inference.RunInference(ctx, req)
	}
	if err != nil {
		p, n := s.PutString(ctx, err.Error())
		s.U8(ret, 1)
		s.U32(ret+8, p)
		s.U32(ret+12, n)
		return
	}
	tp, tn := s.PutString(ctx, res.Text)
	mp, mn := s.PutString(ctx, res.ModelUsed)
	s.U8(ret, 0)
	s.U32(ret+8, tp)
	s.U32(ret+12, tn)
	s.U32(ret+16, mp)
	s.U32(ret+20, mn)
	s.U64(ret+24, res.InputTokens)
	s.U64(ret+32, res.OutputTokens)
}

// liftMessagesArg lifts a list<message> parameter (16 bytes a message).
func (s *state) liftMessagesArg(ptr, n uint32) []Message {
	if ptr%4 != 0 {
		abi.Trapf("message list pointer %#x is not 4-byte aligned", ptr)
	}
	if uint64(n)*16 > uint64(s.Mem.Size()) {
		abi.Trapf("message list of %d entries exceeds linear memory", n)
	}
	list := append([]byte(nil), s.Read(ptr, n*16)...)
	out := make([]Message, 0, n)
	for i := uint32(0); i < n; i++ {
		e := list[16*i:]
		out = append(out, Message{Role: s.Str(abi.LE32(e), abi.LE32(e[4:])), Content: s.Str(abi.LE32(e[8:]), abi.LE32(e[12:]))})
	}
	return out
}
