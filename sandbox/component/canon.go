package component

import (
	"context"

	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/abi"
)

// ToolInput is murmur:tool/run's tool-input record.
type ToolInput struct {
	Data    *string
	LogPath *string
}

// ToolResult is murmur:tool/run's tool-result record, plus what the call
// left on stdout and stderr and the chunks it emitted.
type ToolResult struct {
	Status    string // "passed", "failed" or "error"
	Summary   *string
	Data      *string
	DataPath  *string
	Truncated bool
	Metadata  [][2]string

	Stdout, Stderr                   []byte
	StdoutTruncated, StderrTruncated bool
	Chunks                           []Chunk
}

// statuses are tool-result's status cases in declaration order.
func statuses() [3]string { return [3]string{"passed", "failed", "error"} }

// toolResultSize is tool-result's canonical-ABI size (align 4): status u8
// at 0, three option<string> at 4, 16 and 28, truncated at 40, metadata
// list at 44.
const toolResultSize = 52

// lowerInput flattens tool-input into run's six i32 parameters.
func (s *state) lowerInput(ctx context.Context, in ToolInput) []uint64 {
	a, b, c := s.LowerOption(ctx, in.Data)
	d, e, f := s.LowerOption(ctx, in.LogPath)
	return []uint64{a, b, c, d, e, f}
}

// liftResult reads the 52-byte tool-result at ptr, checking alignment,
// bounds, tags and UTF-8.
func liftResult(mem abi.MemReader, ptr uint32) (ToolResult, error) {
	var r ToolResult
	if ptr%4 != 0 {
		return r, abi.LiftFail("result pointer %#x is not 4-byte aligned", ptr)
	}
	b, ok := mem.Read(ptr, toolResultSize)
	if !ok {
		return r, abi.LiftFail("result pointer %#x out of bounds", ptr)
	}
	b = append([]byte(nil), b...)
	if b[0] > 2 {
		return r, abi.LiftFail("status tag %d is not passed, failed or error", b[0])
	}
	r.Status = statuses()[b[0]]
	var err error
	for i, dst := range []**string{&r.Summary, &r.Data, &r.DataPath} {
		if *dst, err = abi.LiftOption(mem, b[4+12*i:]); err != nil {
			return r, err
		}
	}
	switch b[40] {
	case 0:
	case 1:
		r.Truncated = true
	default:
		return r, abi.LiftFail("bool byte %d is not 0 or 1", b[40])
	}
	lp, ln := abi.LE32(b[44:]), abi.LE32(b[48:])
	if lp%4 != 0 {
		return r, abi.LiftFail("metadata list pointer %#x is not 4-byte aligned", lp)
	}
	if uint64(ln)*16 > uint64(mem.Size()) {
		return r, abi.LiftFail("metadata list of %d entries exceeds linear memory", ln)
	}
	list, ok := mem.Read(lp, ln*16)
	if !ok {
		return r, abi.LiftFail("metadata list %#x+%d out of bounds", lp, ln)
	}
	list = append([]byte(nil), list...)
	for i := uint32(0); i < ln; i++ {
		k, err := abi.LiftString(mem, list[16*i:])
		if err != nil {
			return r, err
		}
		v, err := abi.LiftString(mem, list[16*i+8:])
		if err != nil {
			return r, err
		}
		r.Metadata = append(r.Metadata, [2]string{k, v})
	}
	return r, nil
}

// storeResult writes r as a tool-result into guest memory at ptr (for
// tool-registry.invoke's result).
func (s *state) storeResult(ctx context.Context, ptr uint32, r ToolResult) {
	st := byte(2)
	for i, v := range statuses() {
		if v == r.Status {
			st = byte(i)
		}
	}
	s.U8(ptr, st)
	for i, v := range []*string{r.Summary, r.Data, r.DataPath} {
		d, p, n := s.LowerOption(ctx, v)
		s.U8(ptr+4+12*uint32(i), byte(d))
		s.U32(ptr+8+12*uint32(i), uint32(p))
		s.U32(ptr+12+12*uint32(i), uint32(n))
	}
	tr := byte(0)
	if r.Truncated {
		tr = 1
	}
	s.U8(ptr+40, tr)
	lp, ln := s.PutPairs(ctx, r.Metadata)
	s.U32(ptr+44, lp)
	s.U32(ptr+48, ln)
}
