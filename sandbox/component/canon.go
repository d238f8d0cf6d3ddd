package component

import (
	"context"
	"fmt"
	"unicode/utf8"
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

// lowerOption flattens an option<string> into (disc, ptr, len), copying
// the string into guest memory through cabi_realloc.
func (s *state) lowerOption(ctx context.Context, v *string) (uint64, uint64, uint64) {
	if v == nil {
		return 0, 0, 0
	}
	p, n := s.putString(ctx, *v)
	return 1, uint64(p), uint64(n)
}

// lowerInput flattens tool-input into run's six i32 parameters.
func (s *state) lowerInput(ctx context.Context, in ToolInput) []uint64 {
	a, b, c := s.lowerOption(ctx, in.Data)
	d, e, f := s.lowerOption(ctx, in.LogPath)
	return []uint64{a, b, c, d, e, f}
}

// liftError is a result the guest laid out wrongly: a tool error, not a
// host failure.
type liftError struct{ text, what string }

func (e *liftError) Error() string {
	if e.what == "" {
		e.what = "tool-result"
	}
	return "invalid " + e.what + ": " + e.text
}

func liftFail(format string, args ...any) error {
	return &liftError{text: fmt.Sprintf(format, args...)}
}

// liftResult reads the 52-byte tool-result at ptr, checking alignment,
// bounds, tags and UTF-8.
func liftResult(mem memReader, ptr uint32) (ToolResult, error) {
	var r ToolResult
	if ptr%4 != 0 {
		return r, liftFail("result pointer %#x is not 4-byte aligned", ptr)
	}
	b, ok := mem.Read(ptr, toolResultSize)
	if !ok {
		return r, liftFail("result pointer %#x out of bounds", ptr)
	}
	b = append([]byte(nil), b...)
	if b[0] > 2 {
		return r, liftFail("status tag %d is not passed, failed or error", b[0])
	}
	r.Status = statuses()[b[0]]
	var err error
	for i, dst := range []**string{&r.Summary, &r.Data, &r.DataPath} {
		if *dst, err = liftOption(mem, b[4+12*i:]); err != nil {
			return r, err
		}
	}
	switch b[40] {
	case 0:
	case 1:
		r.Truncated = true
	default:
		return r, liftFail("bool byte %d is not 0 or 1", b[40])
	}
	lp, ln := le32(b[44:]), le32(b[48:])
	if lp%4 != 0 {
		return r, liftFail("metadata list pointer %#x is not 4-byte aligned", lp)
	}
	if uint64(ln)*16 > uint64(mem.Size()) {
		return r, liftFail("metadata list of %d entries exceeds linear memory", ln)
	}
	list, ok := mem.Read(lp, ln*16)
	if !ok {
		return r, liftFail("metadata list %#x+%d out of bounds", lp, ln)
	}
	list = append([]byte(nil), list...)
	for i := uint32(0); i < ln; i++ {
		k, err := liftString(mem, list[16*i:])
		if err != nil {
			return r, err
		}
		v, err := liftString(mem, list[16*i+8:])
		if err != nil {
			return r, err
		}
		r.Metadata = append(r.Metadata, [2]string{k, v})
	}
	return r, nil
}

func liftOption(mem memReader, b []byte) (*string, error) {
	switch b[0] {
	case 0:
		return nil, nil
	case 1:
		v, err := liftString(mem, b[4:])
		return &v, err
	default:
		return nil, liftFail("option tag %d is not 0 or 1", b[0])
	}
}

func liftString(mem memReader, b []byte) (string, error) {
	p, n := le32(b), le32(b[4:])
	s, ok := mem.Read(p, n)
	if !ok {
		return "", liftFail("string %#x+%d out of bounds", p, n)
	}
	if !utf8.Valid(s) {
		return "", liftFail("string at %#x is not valid UTF-8", p)
	}
	return string(s), nil
}

// memReader is the part of api.Memory the lift needs (a fake in fuzz tests).
type memReader interface {
	Read(offset, n uint32) ([]byte, bool)
	Size() uint32
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
	s.u8(ptr, st)
	for i, v := range []*string{r.Summary, r.Data, r.DataPath} {
		d, p, n := s.lowerOption(ctx, v)
		s.u8(ptr+4+12*uint32(i), byte(d))
		s.u32(ptr+8+12*uint32(i), uint32(p))
		s.u32(ptr+12+12*uint32(i), uint32(n))
	}
	tr := byte(0)
	if r.Truncated {
		tr = 1
	}
	s.u8(ptr+40, tr)
	lp := uint32(4) // a dangling, aligned pointer for an empty list
	if len(r.Metadata) > 0 {
		lp = s.alloc(ctx, 4, uint32(16*len(r.Metadata)))
	}
	for i, kv := range r.Metadata {
		kp, kn := s.putString(ctx, kv[0])
		vp, vn := s.putString(ctx, kv[1])
		e := lp + 16*uint32(i)
		s.u32(e, kp)
		s.u32(e+4, kn)
		s.u32(e+8, vp)
		s.u32(e+12, vn)
	}
	s.u32(ptr+44, lp)
	s.u32(ptr+48, uint32(len(r.Metadata)))
}
