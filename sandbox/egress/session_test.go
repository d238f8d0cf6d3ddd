package egress

import (
	"context"
	"io"
	"net"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// TestSessionEndsWithItsContext: a call's context ending (its deadline)
// stops the proxy before Close is called.
func TestSessionEndsWithItsContext(t *testing.T) {
	baseline := runtime.NumGoroutine()
	p := newPolicy(t, nil, nil, "127.0.0.1")
	l := listen(t)
	ctx, cancel := context.WithCancel(context.Background())
	s := p.Serve(ctx, []net.Listener{l}, nil)
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("tcp4", l.Addr().String())
		if err != nil {
			break // the listener is closed: connection refused
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("the listener still accepts after the context ended")
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.Close()
	noLeak(t, baseline)
}

// TestDefaultResolverFindsLocalhost: with the zero Options, the policy
// looks names up with the host's resolver (here /etc/hosts).
func TestDefaultResolverFindsLocalhost(t *testing.T) {
	p, err := NewPolicy(rulesOf(t, "localhost:11434"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ok, why := p.decide(context.Background(), netip.MustParseAddrPort("127.0.0.1:11434")); !ok {
		t.Errorf("127.0.0.1:11434 for localhost:11434: refused (%s)", why)
	}
}

// TestHammer runs forwarded connections, refused ones and queries from
// many goroutines at once, with Close arriving in the middle; under -race
// it checks the session's locking, and afterwards that nothing is left.
func TestHammer(t *testing.T) {
	up, stop := upstreamServer(t)
	defer stop()
	baseline := runtime.NumGoroutine()
	p := newPolicy(t, &fakeDNS{names: map[string][]string{"api.example.com": {"127.0.0.1"}}}, dialTo(up, nil), "127.0.0.1", "api.example.com")
	allowed := listen(t)
	// "127.0.0.2" is named by no entry: every connection there is refused.
	refused, err := net.Listen("tcp4", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := p.Serve(context.Background(), []net.Listener{allowed, refused}, conn)

	// Close comes once every goroutine has made three calls, one of each
	// kind: in the middle of the traffic, not before it.
	var wg, midway sync.WaitGroup
	for i := range 8 {
		midway.Add(1)
		wg.Go(func() {
			var once sync.Once
			defer once.Do(midway.Done) // one that stopped early
			for j := range 20 {
				if j == 3 {
					once.Do(midway.Done)
				}
				switch (i + j) % 3 {
				case 0:
					c, err := net.Dial("tcp4", allowed.Addr().String())
					if err != nil {
						return // closed under us
					}
					_ = c.SetDeadline(time.Now().Add(5 * time.Second))
					_, _ = c.Write([]byte("hi"))
					_ = c.(*net.TCPConn).CloseWrite()
					_, _ = io.ReadAll(c)
					c.Close()
				case 1:
					c, err := net.Dial("tcp4", refused.Addr().String())
					if err == nil {
						_ = c.SetDeadline(time.Now().Add(5 * time.Second))
						_, _ = c.Read(make([]byte, 1))
						c.Close()
					}
				case 2:
					c, err := net.Dial("udp4", conn.LocalAddr().String())
					if err != nil {
						return
					}
					name := "api.example.com."
					if j%2 == 0 {
						name = "other.example."
					}
					_, _ = c.Write(query(t, name, dnsmessage.TypeA))
					_ = c.SetReadDeadline(time.Now().Add(time.Second))
					_, _ = c.Read(make([]byte, 512))
					c.Close()
				}
			}
		})
	}
	midway.Wait()
	denials := s.Close()
	wg.Wait()
	for _, d := range denials {
		if d.Kind == KindTCP && !strings.HasPrefix(d.Target, "127.0.0.2:") {
			t.Errorf("denial %+v: only 127.0.0.2 is refused", d)
		}
	}
	noLeak(t, baseline)
}
