package egress

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"time"
)

// accept serves one listener until the session shuts down.
func (s *Session) accept(l net.Listener) {
	defer s.wg.Done()
	for {
		c, err := l.Accept()
		if err != nil {
			if s.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of descriptors or a connection aborted before accept:
			// wait a little rather than spin.
			select {
			case <-s.ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		if !s.track(c) {
			_ = c.Close()
			return
		}
		if s.active.Add(1) > MaxConns {
			s.active.Add(-1)
			s.deny(Denial{Kind: KindTCP, Target: destination(c).String(), Reason: fmt.Sprintf("more than %d connections at once", MaxConns)})
			s.untrack(c)
			reset(c)
			continue
		}
		s.wg.Add(1)
		go s.forward(c)
	}
}

// forward checks one accepted connection and, when allowed, relays it to
// its destination.
func (s *Session) forward(c net.Conn) {
	defer s.wg.Done()
	defer s.active.Add(-1)
	defer s.untrack(c)
	dst := destination(c)
	if ok, why := s.p.decide(s.ctx, dst); !ok {
		if s.ctx.Err() == nil { // not a lookup cut short by Close
			s.deny(Denial{Kind: KindTCP, Target: dst.String(), Reason: why})
		}
		reset(c)
		return
	}
	up, err := s.p.dial(s.ctx, "tcp4", dst.String())
	if err != nil {
		reset(c) // allowed, but the upstream is down: as a direct connect would fail
		return
	}
	if !s.track(up) {
		_ = up.Close()
		_ = c.Close()
		return
	}
	defer s.untrack(up)
	relay(c, up)
}

// relay copies both ways until both directions end. A direction that
// ends cleanly (EOF) half-closes the other side's write half, so a client
// that shuts down its write side still gets the answer; one that fails
// closes both connections. Between two *net.TCPConn, io.Copy splices.
func relay(client, up net.Conn) {
	done := make(chan struct{})
	go func() {
		pipe(up, client)
		close(done)
	}()
	pipe(client, up)
	<-done
	_ = client.Close()
	_ = up.Close()
}

// pipe copies src to dst, then closes dst's write half (or, on an error,
// both connections).
func pipe(dst, src net.Conn) {
	if _, err := io.Copy(dst, src); err != nil {
		_ = src.Close()
		_ = dst.Close()
		return
	}
	if cw, ok := dst.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	} else {
		_ = dst.Close()
	}
}

// destination is the address c was dialled at: its local address, which
// the namespace's local route leaves as the tool asked for.
func destination(c net.Conn) netip.AddrPort {
	if a, ok := c.LocalAddr().(*net.TCPAddr); ok {
		ap := a.AddrPort()
		return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	}
	ap, _ := netip.ParseAddrPort(c.LocalAddr().String())
	return ap
}

// reset closes c with a TCP reset, not a clean end, so the tool sees a
// refused connection ("connection reset by peer") rather than an empty
// answer.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}
