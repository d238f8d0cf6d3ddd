package wasi

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/abi"
)

// inStream is a wasi:io input-stream over an in-memory reader, a file or
// an HTTP response body. A partial stream (a body) returns what one read
// gives instead of filling the guest's buffer, so that a slow server's
// bytes reach the guest as they come.
type inStream struct {
	r       io.Reader
	c       io.Closer
	partial bool
}

func (s *inStream) Close() {
	if s.c != nil {
		_ = s.c.Close()
	}
}

// outStream is a wasi:io output-stream over the capped stdio buffers or a
// file.
type outStream struct {
	w io.Writer
	c io.Closer
}

func (s *outStream) Close() {
	if s.c != nil {
		_ = s.c.Close()
	}
}

// pollable is ready at deadline (zero: always ready), or, when done is
// set, once done is closed (an HTTP future).
type pollable struct {
	deadline time.Time
	done     <-chan struct{}
}

// isReady reports whether p is ready at now.
func (p *pollable) isReady(now time.Time) bool {
	if p.done != nil {
		select {
		case <-p.done:
			return true
		default:
			return false
		}
	}
	return !now.Before(p.deadline)
}

// ioErr is a wasi:io error resource.
type ioErr struct {
	text string
	http *httpErr // the error-code wasi:http/types.http-error-code gives
}

// maxRead caps one read so a guest asking for 2^64 bytes gets what there is.
const maxRead = 1 << 20

// checkWriteBudget is what check-write grants; writes larger than it are a
// guest error in WASI, but we accept them (the stdio buffers cap output).
const checkWriteBudget = 1 << 20

func addIO(all map[string]iface) {
	read := func(ctx context.Context, s *Host, st []uint64) {
		in := abi.Get[*inStream](&s.H, uint32(st[0]), "input-stream")
		n, ret := atMost(in, min(st[1], maxRead)), uint32(st[2])
		buf := make([]byte, n)
		got, err := readIn(ctx, in, buf)
		if got == 0 && n > 0 && err != nil {
			s.streamError(ret, 4, err)
			return
		}
		p, l := s.PutBytes(ctx, buf[:got])
		s.U8(ret, 0)
		s.U32(ret+4, p)
		s.U32(ret+8, l)
	}
	skip := func(ctx context.Context, s *Host, st []uint64) {
		in := abi.Get[*inStream](&s.H, uint32(st[0]), "input-stream")
		ret := uint32(st[2])
		got, err := io.CopyN(io.Discard, in.r, int64(min(st[1], 1<<62)))
		if got == 0 && st[1] > 0 && err != nil {
			s.streamError(ret, 8, err)
			return
		}
		s.U8(ret, 0)
		s.U64(ret+8, uint64(got))
	}
	write := func(ctx context.Context, s *Host, st []uint64) {
		out := abi.Get[*outStream](&s.H, uint32(st[0]), "output-stream")
		b := s.Read(uint32(st[1]), uint32(st[2]))
		ret := uint32(st[3])
		if _, err := out.w.Write(b); err != nil {
			s.streamError(ret, 4, err)
			return
		}
		s.U8(ret, 0)
	}
	flush := func(ctx context.Context, s *Host, st []uint64) {
		abi.Get[*outStream](&s.H, uint32(st[0]), "output-stream")
		s.U8(uint32(st[1]), 0)
	}
	zeroes := func(ctx context.Context, s *Host, st []uint64) {
		out := abi.Get[*outStream](&s.H, uint32(st[0]), "output-stream")
		ret := uint32(st[2])
		if _, err := io.CopyN(out.w, zeroReader{}, int64(min(st[1], checkWriteBudget))); err != nil {
			s.streamError(ret, 4, err)
			return
		}
		s.U8(ret, 0)
	}
	splice := func(ctx context.Context, s *Host, st []uint64) {
		out := abi.Get[*outStream](&s.H, uint32(st[0]), "output-stream")
		in := abi.Get[*inStream](&s.H, uint32(st[1]), "input-stream")
		ret := uint32(st[3])
		got, err := io.CopyN(out.w, in.r, int64(min(st[2], maxRead)))
		if got == 0 && st[2] > 0 && err != nil {
			s.streamError(ret, 8, err)
			return
		}
		s.U8(ret, 0)
		s.U64(ret+8, uint64(got))
	}
	ready := func(ctx context.Context, s *Host, st []uint64) { st[0] = uint64(s.H.Add(&pollable{})) }
	all["wasi:io/streams"] = iface{
		"[resource-drop]input-stream":        {abi.Sig(i32), nil, dropFn[*inStream]("input-stream")},
		"[resource-drop]output-stream":       {abi.Sig(i32), nil, dropFn[*outStream]("output-stream")},
		"[method]input-stream.read":          {abi.Sig(i32, i64, i32), nil, read},
		"[method]input-stream.blocking-read": {abi.Sig(i32, i64, i32), nil, read},
		"[method]input-stream.skip":          {abi.Sig(i32, i64, i32), nil, skip},
		"[method]input-stream.blocking-skip": {abi.Sig(i32, i64, i32), nil, skip},
		"[method]input-stream.subscribe":     {abi.Sig(i32), abi.Sig(i32), ready},
		"[method]output-stream.check-write": {abi.Sig(i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			abi.Get[*outStream](&s.H, uint32(st[0]), "output-stream")
			s.U8(uint32(st[1]), 0)
			s.U64(uint32(st[1])+8, checkWriteBudget)
		}},
		"[method]output-stream.write":                           {abi.Sig(i32, i32, i32, i32), nil, write},
		"[method]output-stream.blocking-write-and-flush":        {abi.Sig(i32, i32, i32, i32), nil, write},
		"[method]output-stream.flush":                           {abi.Sig(i32, i32), nil, flush},
		"[method]output-stream.blocking-flush":                  {abi.Sig(i32, i32), nil, flush},
		"[method]output-stream.subscribe":                       {abi.Sig(i32), abi.Sig(i32), ready},
		"[method]output-stream.write-zeroes":                    {abi.Sig(i32, i64, i32), nil, zeroes},
		"[method]output-stream.blocking-write-zeroes-and-flush": {abi.Sig(i32, i64, i32), nil, zeroes},
		"[method]output-stream.splice":                          {abi.Sig(i32, i32, i64, i32), nil, splice},
		"[method]output-stream.blocking-splice":                 {abi.Sig(i32, i32, i64, i32), nil, splice},
	}
	addPoll(all)
	addError(all)
}

// addPoll adds wasi:io/poll. Only clock pollables ever wait; every other
// pollable is ready at once.
func addPoll(all map[string]iface) {
	all["wasi:io/poll"] = iface{
		"[resource-drop]pollable": {abi.Sig(i32), nil, dropFn[*pollable]("pollable")},
		"[method]pollable.ready": {abi.Sig(i32), abi.Sig(i32), func(ctx context.Context, s *Host, st []uint64) {
			p := abi.Get[*pollable](&s.H, uint32(st[0]), "pollable")
			st[0] = 0
			if p.isReady(time.Now()) {
				st[0] = 1
			}
		}},
		"[method]pollable.block": {abi.Sig(i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			p := abi.Get[*pollable](&s.H, uint32(st[0]), "pollable")
			s.waiting()
			waitAny(ctx, []*pollable{p})
		}},
		"poll": {abi.Sig(i32, i32, i32), nil, poll},
	}
}

// poll blocks until the first of a list of pollables is ready and returns
// the indices of the ready ones.
func poll(ctx context.Context, s *Host, st []uint64) {
	list := s.Read(uint32(st[0]), 4*uint32(min(st[1], 1<<28)))
	var ps []*pollable
	for i := 0; i+4 <= len(list); i += 4 {
		ps = append(ps, abi.Get[*pollable](&s.H, abi.LE32(list[i:]), "pollable"))
	}
	if len(ps) == 0 {
		abi.Trapf("poll called with an empty list")
	}
	s.waiting()
	waitAny(ctx, ps)
	now := time.Now()
	var idx []uint32
	for i, p := range ps {
		if p.isReady(now) {
			idx = append(idx, uint32(i))
		}
	}
	ptr := s.Alloc(ctx, 4, uint32(4*len(idx)))
	for i, v := range idx {
		s.U32(ptr+4*uint32(i), v)
	}
	ret := uint32(st[2])
	s.U32(ret, ptr)
	s.U32(ret+4, uint32(len(idx)))
}

// addError adds wasi:io/error.
func addError(all map[string]iface) {
	all["wasi:io/error"] = iface{
		"[resource-drop]error": {abi.Sig(i32), nil, dropFn[*ioErr]("error")},
		"[method]error.to-debug-string": {abi.Sig(i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			e := abi.Get[*ioErr](&s.H, uint32(st[0]), "error")
			p, n := s.PutString(ctx, e.text)
			s.U32(uint32(st[1]), p)
			s.U32(uint32(st[1])+4, n)
		}},
	}
}

// streamError stores err(stream-error) in a result at ret whose payload is
// at ret+off: closed at end of stream, else last-operation-failed with an
// error resource.
func (s *Host) streamError(ret, off uint32, err error) {
	s.U8(ret, 1)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		s.U8(ret+off, 1)
		return
	}
	s.U8(ret+off, 0)
	e := &ioErr{text: err.Error()}
	errors.As(err, &e.http)
	s.U32(ret+off+4, s.H.Add(e))
}

// waitAny blocks until one of ps is ready or until the call's context
// ends: wazero stops only guest code at the deadline, so a host function
// must stop by itself.
func waitAny(ctx context.Context, ps []*pollable) {
	now := time.Now()
	var first time.Time
	var chans []<-chan struct{}
	for _, p := range ps {
		if p.isReady(now) {
			return
		}
		if p.done != nil {
			chans = append(chans, p.done)
		} else if first.IsZero() || p.deadline.Before(first) {
			first = p.deadline
		}
	}
	var timer <-chan time.Time
	if !first.IsZero() {
		tm := time.NewTimer(time.Until(first))
		defer tm.Stop()
		timer = tm.C
	}
	// One goroutine per future (a poll list is short) wakes the wait.
	wake := make(chan struct{}, 1)
	stop := make(chan struct{})
	defer close(stop)
	for _, c := range chans {
		go func() {
			select {
			case <-c:
				select {
				case wake <- struct{}{}:
				default:
				}
			case <-stop:
			}
		}()
	}
	select {
	case <-timer:
	case <-wake:
	case <-ctx.Done():
		abi.Trapf("interrupted while blocked in wasi:io/poll: %v", context.Cause(ctx))
	}
}

// readIn reads into buf: a partial stream gives what one read of its
// source returns (blocking until at least a byte or the end), any other
// fills buf. A read that fails because the call's context ended traps, so
// the call reports its deadline rather than a stream error.
func readIn(ctx context.Context, in *inStream, buf []byte) (int, error) {
	if !in.partial {
		return io.ReadFull(in.r, buf)
	}
	for {
		n, err := in.r.Read(buf)
		if err != nil && ctx.Err() != nil {
			abi.Trapf("interrupted while reading an HTTP body: %v", context.Cause(ctx))
		}
		if n > 0 || err != nil || len(buf) == 0 {
			return n, err
		}
	}
}

// atMost is the room a read of up to n bytes from in needs: n, or one byte
// more than the stream has left when it knows (the extra byte still sees
// the end). A driver reads its HTTP body 16 KiB at a time, most of it
// never filled.
func atMost(in *inStream, n uint64) uint64 {
	if l, ok := in.r.(interface{ left() (int64, bool) }); ok {
		if left, known := l.left(); known && uint64(left) < n {
			return uint64(left) + 1
		}
	}
	return n
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
