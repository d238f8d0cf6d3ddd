package wasi

import (
	"bytes"
	"context"
	"strings"

	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/abi"
)

// addCLI adds wasi:cli: environment, exit, stdio and the terminal
// interfaces (which report that no stream is a terminal).
func addCLI(all map[string]iface) {
	all["wasi:cli/environment"] = iface{
		"get-environment": {abi.Sig(i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			ret := uint32(st[0])
			var pairs [][2]string
			for _, kv := range s.env.Env {
				k, v, _ := strings.Cut(kv, "=")
				pairs = append(pairs, [2]string{k, v})
			}
			p, n := s.PutPairs(ctx, pairs)
			s.U32(ret, p)
			s.U32(ret+4, n)
		}},
		"get-arguments": {abi.Sig(i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			ret := uint32(st[0])
			p := uint32(4)
			if len(s.env.Args) > 0 {
				p = s.Alloc(ctx, 4, uint32(8*len(s.env.Args)))
			}
			for i, a := range s.env.Args {
				ap, an := s.PutString(ctx, a)
				s.U32(p+8*uint32(i), ap)
				s.U32(p+8*uint32(i)+4, an)
			}
			s.U32(ret, p)
			s.U32(ret+4, uint32(len(s.env.Args)))
		}},
		"initial-cwd": {abi.Sig(i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			s.U8(uint32(st[0]), 0) // none
		}},
	}
	all["wasi:cli/exit"] = iface{
		"exit": {abi.Sig(i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			code := uint32(0)
			if uint32(st[0]) != 0 { // result<_, _>'s tag, an i32
				code = 1
			}
			panic(&exitCode{code: code})
		}},
	}
	all["wasi:cli/stdin"] = iface{"get-stdin": {nil, abi.Sig(i32), func(ctx context.Context, s *Host, st []uint64) {
		st[0] = uint64(s.H.Add(&inStream{r: bytes.NewReader(s.env.Stdin)}))
	}}}
	all["wasi:cli/stdout"] = iface{"get-stdout": {nil, abi.Sig(i32), func(ctx context.Context, s *Host, st []uint64) {
		st[0] = uint64(s.H.Add(&outStream{w: s.Stdout}))
	}}}
	all["wasi:cli/stderr"] = iface{"get-stderr": {nil, abi.Sig(i32), func(ctx context.Context, s *Host, st []uint64) {
		st[0] = uint64(s.H.Add(&outStream{w: s.Stderr}))
	}}}
	none := func(ctx context.Context, s *Host, st []uint64) { s.U8(uint32(st[0]), 0) }
	all["wasi:cli/terminal-input"] = iface{"[resource-drop]terminal-input": {abi.Sig(i32), nil, dropFn[*terminal]("terminal-input")}}
	all["wasi:cli/terminal-output"] = iface{"[resource-drop]terminal-output": {abi.Sig(i32), nil, dropFn[*terminal]("terminal-output")}}
	all["wasi:cli/terminal-stdin"] = iface{"get-terminal-stdin": {abi.Sig(i32), nil, none}}
	all["wasi:cli/terminal-stdout"] = iface{"get-terminal-stdout": {abi.Sig(i32), nil, none}}
	all["wasi:cli/terminal-stderr"] = iface{"get-terminal-stderr": {abi.Sig(i32), nil, none}}
}

// terminal is never created (no stream is a terminal) but may be dropped
// by a guest that got one some other way: it cannot, so a drop traps.
type terminal struct{}

// dropFn is a [resource-drop] function for resources of type T.
func dropFn[T any](what string) func(context.Context, *Host, []uint64) {
	return func(ctx context.Context, s *Host, st []uint64) { abi.DropAs[T](&s.H, uint32(st[0]), what) }
}
