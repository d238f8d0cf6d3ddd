package egress

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
)

// Limits of one call's session.
const (
	// MaxConns is how many forwarded connections a call may have open at
	// once (murmur's figure); one more is reset and refused.
	MaxConns = 128
	// MaxDenials is how many refusals a call lists; past it they are
	// counted in one last Denial of kind KindMore.
	MaxDenials = 1000
	// dnsWorkers is how many queries are answered at once; a slow upstream
	// lookup holds one, and past them the socket's queue waits.
	dnsWorkers = 16
)

// Denial kinds.
const (
	KindTCP  = "tcp"  // a connection was reset unforwarded
	KindDNS  = "dns"  // a query was refused, or an answer withheld
	KindMore = "more" // the last entry: how many more were not listed
)

// Denial is one thing the proxy refused. Target is the destination
// ("1.2.3.4:443") for KindTCP and the queried name (lowercased, no
// trailing dot; "" when the query was malformed) for KindDNS.
type Denial struct {
	Kind   string
	Target string
	Reason string
}

// Session serves one subprocess call's namespace. It is created by Serve
// and ended by Close; its methods are safe for concurrent use.
type Session struct {
	p      *Policy
	ctx    context.Context // the session's life: ended by Close; not a stored request ctx
	cancel context.CancelFunc
	tcp    []net.Listener
	dns    net.PacketConn
	wg     sync.WaitGroup
	active atomic.Int32 // forwarded or checking connections

	mu       sync.Mutex
	closed   bool
	conns    map[net.Conn]struct{}
	denials  []Denial
	dnsSeen  map[Denial]bool
	unlisted int

	stop      func() bool
	closeOnce sync.Once
	result    []Denial
}

// Serve starts serving one call: tcp are the listeners bound inside the
// call's namespace (one per Ports entry, in any order), dns the UDP
// socket bound on port 53 there (nil: no resolver). The session owns them
// from now on and closes them in Close, which the caller must call once
// the call's process has exited. ctx ending stops the session as Close
// does (Close must still be called).
func (p *Policy) Serve(ctx context.Context, tcp []net.Listener, dns net.PacketConn) *Session {
	s := &Session{p: p, tcp: tcp, dns: dns, conns: map[net.Conn]struct{}{}, dnsSeen: map[Denial]bool{}}
	s.ctx, s.cancel = context.WithCancel(ctx)
	s.stop = context.AfterFunc(s.ctx, s.shutdown)
	for _, l := range tcp {
		s.wg.Add(1)
		go s.accept(l)
	}
	if dns != nil {
		s.wg.Add(1)
		go s.serveDNS(dns)
	}
	return s
}

// Close stops accepting, ends the connections and lookups in flight, waits
// for every goroutine of the session, and returns what was refused, in
// order. Calling it again returns the same list.
func (s *Session) Close() []Denial {
	s.closeOnce.Do(func() {
		s.cancel()
		s.shutdown() // also when the AfterFunc has not run yet
		s.wg.Wait()
		s.mu.Lock()
		s.result = s.denials
		if s.unlisted > 0 {
			s.result = append(s.result, Denial{Kind: KindMore, Reason: fmt.Sprintf("%d more refusals not listed", s.unlisted)})
		}
		s.mu.Unlock()
	})
	return s.result
}

// shutdown closes the sockets and every connection; it may run twice.
func (s *Session) shutdown() {
	s.mu.Lock()
	s.closed = true
	conns := s.conns
	s.conns = map[net.Conn]struct{}{}
	s.mu.Unlock()
	for _, l := range s.tcp {
		_ = l.Close()
	}
	if s.dns != nil {
		_ = s.dns.Close()
	}
	for c := range conns {
		_ = c.Close()
	}
}

// track registers c to be closed by shutdown; false (c not registered)
// once the session is shutting down.
func (s *Session) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Session) untrack(c net.Conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// deny records d. A refused query is listed once per name and reason: a
// resolver asks for A and AAAA, and again for each search domain.
func (s *Session) deny(d Denial) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d.Kind == KindDNS {
		if s.dnsSeen[d] {
			return
		}
		s.dnsSeen[d] = true
	}
	if len(s.denials) >= MaxDenials {
		s.unlisted++
		return
	}
	s.denials = append(s.denials, d)
}
