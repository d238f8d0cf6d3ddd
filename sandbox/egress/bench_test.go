package egress

import (
	"context"
	"io"
	"net"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// BenchmarkForward is one connection through the proxy: the tool's
// connect, the accept, the decision, the upstream dial, the upstream's
// close passed on, and the tool's close.
func BenchmarkForward(b *testing.B) {
	ul := listen(b)
	defer ul.Close()
	go func() {
		for {
			c, err := ul.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	p := newPolicy(b, nil, dialTo(ul.Addr().String(), nil), "127.0.0.1")
	l := listen(b)
	s := p.Serve(context.Background(), []net.Listener{l}, nil)
	defer s.Close()
	addr := l.Addr().String()
	b.ResetTimer()
	for b.Loop() {
		c, err := net.Dial("tcp4", addr)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, c); err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

// BenchmarkRefuse is one refused connection: connect, decision, reset.
func BenchmarkRefuse(b *testing.B) {
	p := newPolicy(b, &fakeDNS{names: map[string][]string{"api.example.com": {"203.0.113.7"}}}, nil, "api.example.com")
	l := listen(b)
	s := p.Serve(context.Background(), []net.Listener{l}, nil)
	defer s.Close()
	addr := l.Addr().String()
	for b.Loop() {
		c, err := net.Dial("tcp4", addr)
		if err != nil {
			continue // reset before the dial returned
		}
		_, _ = c.Read(make([]byte, 1))
		c.Close()
	}
}

// BenchmarkAnswer is the resolver's decision and reply for an allowed
// name whose upstream answer is cached.
func BenchmarkAnswer(b *testing.B) {
	p := newPolicy(b, &fakeDNS{names: map[string][]string{"api.example.com": {"203.0.113.7", "203.0.113.8"}}}, nil, "api.example.com")
	q := query(b, "api.example.com.", dnsmessage.TypeA)
	b.ReportAllocs()
	for b.Loop() {
		if r, _ := p.answer(context.Background(), q); r == nil {
			b.Fatal("no reply")
		}
	}
}

// BenchmarkAnswerOverUDP is a stub's round trip to the resolver.
func BenchmarkAnswerOverUDP(b *testing.B) {
	p := newPolicy(b, &fakeDNS{names: map[string][]string{"api.example.com": {"203.0.113.7"}}}, nil, "api.example.com")
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	s := p.Serve(context.Background(), nil, conn)
	defer s.Close()
	c, err := net.Dial("udp4", conn.LocalAddr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	q := query(b, "api.example.com.", dnsmessage.TypeA)
	buf := make([]byte, 512)
	for b.Loop() {
		if _, err := c.Write(q); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Read(buf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkServeClose is the per-call cost of the proxy itself: serving
// two listeners and a resolver, and closing them (the sockets are made
// outside the timer, as the launcher makes them).
func BenchmarkServeClose(b *testing.B) {
	p := newPolicy(b, nil, nil, "api.example.com")
	for b.Loop() {
		b.StopTimer()
		l1, l2 := listen(b), listen(b)
		conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		p.Serve(context.Background(), []net.Listener{l1, l2}, conn).Close()
	}
}

// BenchmarkDirect is BenchmarkForward's connection without the proxy: the
// baseline its figure is compared with.
func BenchmarkDirect(b *testing.B) {
	ul := listen(b)
	defer ul.Close()
	go func() {
		for {
			c, err := ul.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	addr := ul.Addr().String()
	for b.Loop() {
		c, err := net.Dial("tcp4", addr)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, c); err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}
