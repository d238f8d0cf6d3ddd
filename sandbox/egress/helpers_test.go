package egress

import (
	"context"
	"net"
	"net/netip"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"golang.org/x/net/dns/dnsmessage"
)

// rulesOf parses allow entries as a manifest's would be.
func rulesOf(t testing.TB, entries ...string) []capsule.AllowRule {
	t.Helper()
	var out []capsule.AllowRule
	for _, e := range entries {
		r, err := capsule.ParseAllowEntry(e)
		if err != nil {
			t.Fatalf("ParseAllowEntry(%q): %v", e, err)
		}
		out = append(out, r)
	}
	return out
}

// fakeDNS is an upstream that knows names; any other is NXDOMAIN. It
// counts its lookups.
type fakeDNS struct {
	names   map[string][]string
	lookups atomic.Int32
}

func (f *fakeDNS) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	f.lookups.Add(1)
	addrs, ok := f.names[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var out []netip.Addr
	for _, a := range addrs {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

// newPolicy builds a policy of entries over upstream.
func newPolicy(t testing.TB, upstream *fakeDNS, dial func(ctx context.Context, network, addr string) (net.Conn, error), entries ...string) *Policy {
	t.Helper()
	opts := Options{Dial: dial}
	if upstream != nil {
		opts.Resolve = upstream.resolve
	}
	p, err := NewPolicy(rulesOf(t, entries...), opts)
	if err != nil {
		t.Fatalf("NewPolicy: %v", err)
	}
	return p
}

// query is a DNS query for name of type typ with ID 0x1234.
func query(t testing.TB, name string, typ dnsmessage.Type) []byte {
	t.Helper()
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: 0x1234, RecursionDesired: true})
	_ = b.StartQuestions()
	if err := b.Question(dnsmessage.Question{Name: dnsmessage.MustNewName(name), Type: typ, Class: dnsmessage.ClassINET}); err != nil {
		t.Fatalf("build a query for %q: %v", name, err)
	}
	msg, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

// parsed is a reply's header and A answers.
type parsed struct {
	h       dnsmessage.Header
	answers []string
	ttls    []uint32
	other   int // answers of another type
}

func parseReply(t testing.TB, reply []byte) parsed {
	t.Helper()
	var m dnsmessage.Message
	if err := m.Unpack(reply); err != nil {
		t.Fatalf("reply does not parse: %v (% x)", err, reply)
	}
	out := parsed{h: m.Header}
	for _, a := range m.Answers {
		if r, ok := a.Body.(*dnsmessage.AResource); ok {
			out.answers = append(out.answers, netip.AddrFrom4(r.A).String())
			out.ttls = append(out.ttls, a.Header.TTL)
		} else {
			out.other++
		}
	}
	return out
}

// noLeak fails t when goroutines started after baseline are still
// running a second after the test's own work ended.
func noLeak(t *testing.T, baseline int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > baseline {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("got %d goroutines, want at most %d:\n%s", runtime.NumGoroutine(), baseline, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// listen is a TCP listener on 127.0.0.1; its address stands in for the
// destination a tool dialled in the namespace.
func listen(t testing.TB) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func netipAP(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }
