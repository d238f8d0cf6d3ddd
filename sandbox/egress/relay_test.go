package egress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// upstreamServer answers each connection by reading the request to its
// end (EOF: the proxy must pass the client's half-close on), then writing
// "echo:"+request and closing.
func upstreamServer(t *testing.T) (addr string, stop func()) {
	t.Helper()
	l := listen(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				req, _ := io.ReadAll(c)
				_, _ = c.Write(append([]byte("echo:"), req...))
			}()
		}
	}()
	return l.Addr().String(), func() { _ = l.Close(); <-done }
}

// dialTo is an Options.Dial that reaches addr whatever it is asked for,
// and remembers what it was asked for.
func dialTo(addr string, asked *atomic.Value) func(ctx context.Context, network, a string) (net.Conn, error) {
	return func(ctx context.Context, network, a string) (net.Conn, error) {
		if asked != nil {
			asked.Store(network + " " + a)
		}
		var d net.Dialer
		return d.DialContext(ctx, "tcp4", addr)
	}
}

func TestForwardCarriesBytesBothWaysWithHalfClose(t *testing.T) {
	up, stop := upstreamServer(t)
	defer stop()
	var asked atomic.Value
	p := newPolicy(t, nil, dialTo(up, &asked), "127.0.0.1")
	l := listen(t)
	s := p.Serve(context.Background(), []net.Listener{l}, nil)

	c, err := net.Dial("tcp4", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	payload := strings.Repeat("ping", 50_000) // larger than a socket buffer
	if _, err := io.WriteString(c, payload); err != nil {
		t.Fatal(err)
	}
	if err := c.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("read the answer: %v", err)
	}
	if string(got) != "echo:"+payload {
		t.Errorf("got %d bytes (%.20q...), want %d", len(got), got, len("echo:"+payload))
	}
	if want := "tcp4 " + l.Addr().String(); asked.Load() != want {
		t.Errorf("dialled %v, want %q (the accepted connection's local address)", asked.Load(), want)
	}
	if d := s.Close(); len(d) != 0 {
		t.Errorf("Close: got denials %+v, want none", d)
	}
}

func TestRefusedConnectionIsResetAndDeniedOnce(t *testing.T) {
	var dialled atomic.Bool
	p := newPolicy(t, &fakeDNS{names: map[string][]string{"api.example.com": {"203.0.113.7"}}},
		func(ctx context.Context, network, addr string) (net.Conn, error) {
			dialled.Store(true)
			return nil, errors.New("must not dial")
		}, "api.example.com")
	l := listen(t)
	s := p.Serve(context.Background(), []net.Listener{l}, nil)

	if err := dialReset(l.Addr().String()); err != nil {
		t.Error(err)
	}
	got := s.Close()
	want := []Denial{{Kind: KindTCP, Target: l.Addr().String(), Reason: "no network.allow entry names 127.0.0.1 or a host that resolves to it"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("denials (-want +got):\n%s", diff)
	}
	if dialled.Load() {
		t.Error("the refused destination was dialled")
	}
}

// dialReset dials addr and returns nil when the proxy resets the
// connection: at once (before the dial returns) or at the first read.
func dialReset(addr string) error {
	c, err := net.Dial("tcp4", addr)
	if err == nil {
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		// A reset that arrives before the write is reported by the write
		// (the read then sees only the end of the stream): either counts.
		if _, err = c.Write([]byte("GET / HTTP/1.0\r\n\r\n")); errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
			return nil
		}
		var n int
		n, err = c.Read(make([]byte, 10))
		if n > 0 {
			return fmt.Errorf("read %d bytes, want a reset", n)
		}
	}
	if !errors.Is(err, syscall.ECONNRESET) {
		return fmt.Errorf("got %v, want a reset", err)
	}
	return nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// TestCloseEndsConnectionsInFlight: Close does not wait for a tool's
// connections to end by themselves, and leaves no goroutine behind.
func TestCloseEndsConnectionsInFlight(t *testing.T) {
	// An upstream that accepts and holds the connection open.
	ul := listen(t)
	held := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := ul.Accept()
			if err != nil {
				close(held)
				return
			}
			held <- c
		}
	}()
	defer func() {
		ul.Close()
		for c := range held {
			c.Close()
		}
	}()
	baseline := runtime.NumGoroutine()

	slow := &blockingDNS{}
	p := newPolicy(t, nil, dialTo(ul.Addr().String(), nil), "127.0.0.1", "api.example.com")
	p.cache.resolve = slow.resolve
	l := listen(t)
	dns, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := p.Serve(context.Background(), []net.Listener{l}, dns)

	c, err := net.Dial("tcp4", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	// A query stuck in an upstream lookup.
	q, err := net.Dial("udp4", dns.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	_, _ = q.Write(query(t, "api.example.com.", 1))
	for slow.started.Load() == 0 {
		time.Sleep(time.Millisecond)
	}

	start := time.Now()
	s.Close()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %v", d)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadAll(c); isTimeout(err) {
		t.Errorf("the client's connection is still open after Close: %v", err)
	}
	c.Close()
	q.Close()
	noLeak(t, baseline)
}

// blockingDNS is an upstream lookup that hangs until its context ends.
type blockingDNS struct{ started atomic.Int32 }

func (b *blockingDNS) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	b.started.Add(1)
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestConnectionsPastTheCapAreRefused(t *testing.T) {
	// Dialling upstream hangs until Close: every connection stays in flight.
	p := newPolicy(t, nil, func(ctx context.Context, network, addr string) (net.Conn, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}, "127.0.0.1")
	l := listen(t)
	s := p.Serve(context.Background(), []net.Listener{l}, nil)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range MaxConns {
		c, err := net.Dial("tcp4", l.Addr().String())
		if err != nil {
			t.Fatalf("connection %d: %v", len(conns)+1, err)
		}
		conns = append(conns, c)
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.active.Load() < MaxConns && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if err := dialReset(l.Addr().String()); err != nil {
		t.Errorf("connection %d: %v (active %d)", MaxConns+1, err, s.active.Load())
	}
	d := s.Close()
	if len(d) != 1 || !strings.Contains(d[0].Reason, "more than 128 connections") {
		t.Errorf("denials: got %+v, want one for the connection past the cap", d)
	}
}
