package egress

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/dns/dnsmessage"
)

// resolverUnderTest serves a policy's resolver on a UDP socket at addr
// and returns a function that sends one datagram to dst and returns the
// reply (nil when none comes within a second).
func resolverUnderTest(t *testing.T, p *Policy, addr string) (s *Session, ask func(dst string, msg []byte) []byte) {
	t.Helper()
	conn, err := net.ListenPacket("udp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	s = p.Serve(context.Background(), nil, conn)
	t.Cleanup(func() { s.Close() })
	port := conn.LocalAddr().(*net.UDPAddr).Port
	return s, func(dst string, msg []byte) []byte {
		t.Helper()
		// A connected socket, as a stub resolver uses: it takes replies
		// from the address it asked only.
		c, err := net.DialUDP("udp4", nil, &net.UDPAddr{IP: net.ParseIP(dst), Port: port})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(time.Second))
		buf := make([]byte, 1024)
		n, err := c.Read(buf)
		if err != nil {
			return nil
		}
		return buf[:n]
	}
}

func TestResolver(t *testing.T) {
	upstream := &fakeDNS{names: map[string][]string{
		"api.example.com":    {"203.0.113.7", "203.0.113.8", "2001:db8::7"},
		"rebind.example.com": {"169.254.169.254", "203.0.113.9"},
	}}
	p := newPolicy(t, upstream, nil, "https://api.example.com", "rebind.example.com", "gone.example.com", "198.51.100.4")
	s, ask := resolverUnderTest(t, p, "127.0.0.1:0")

	truncated := query(t, "api.example.com.", dnsmessage.TypeA)
	truncated = truncated[:len(truncated)-3]
	response := query(t, "api.example.com.", dnsmessage.TypeA)
	response[2] |= 0x80
	tests := []struct {
		name    string
		msg     []byte
		rcode   dnsmessage.RCode
		answers []string
		noReply bool
	}{
		{"A for an allowed name", query(t, "api.example.com.", dnsmessage.TypeA), dnsmessage.RCodeSuccess, []string{"203.0.113.7", "203.0.113.8"}, false},
		{"case and the trailing dot do not matter", query(t, "API.Example.COM.", dnsmessage.TypeA), dnsmessage.RCodeSuccess, []string{"203.0.113.7", "203.0.113.8"}, false},
		{"AAAA for an allowed name is empty", query(t, "api.example.com.", dnsmessage.TypeAAAA), dnsmessage.RCodeSuccess, nil, false},
		{"TXT for an allowed name is empty", query(t, "api.example.com.", dnsmessage.TypeTXT), dnsmessage.RCodeSuccess, nil, false},
		{"another name is refused", query(t, "c2VjcmV0.evil.example.", dnsmessage.TypeA), dnsmessage.RCodeRefused, nil, false},
		{"a subdomain is another name", query(t, "x.api.example.com.", dnsmessage.TypeA), dnsmessage.RCodeRefused, nil, false},
		{"an address is not a name", query(t, "198.51.100.4.", dnsmessage.TypeA), dnsmessage.RCodeRefused, nil, false},
		{"a link-local answer is withheld", query(t, "rebind.example.com.", dnsmessage.TypeA), dnsmessage.RCodeSuccess, []string{"203.0.113.9"}, false},
		{"an allowed name upstream does not know", query(t, "gone.example.com.", dnsmessage.TypeA), dnsmessage.RCodeNameError, nil, false},
		{"a malformed question", truncated, dnsmessage.RCodeRefused, nil, false},
		{"a response is not answered", response, 0, nil, true},
		{"shorter than a header", []byte{0x12, 0x34, 1}, 0, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply := ask("127.0.0.1", tt.msg)
			if tt.noReply {
				if reply != nil {
					t.Fatalf("got a reply % x, want none", reply)
				}
				return
			}
			if reply == nil {
				t.Fatal("no reply")
			}
			r := parseReply(t, reply)
			if r.h.ID != 0x1234 || !r.h.Response || r.h.RCode != tt.rcode {
				t.Errorf("header: got id %#x response %v rcode %v, want 0x1234 true %v", r.h.ID, r.h.Response, r.h.RCode, tt.rcode)
			}
			if diff := cmp.Diff(tt.answers, r.answers); diff != "" || r.other != 0 {
				t.Errorf("answers (-want +got):\n%s(and %d of another type)", diff, r.other)
			}
			for _, ttl := range r.ttls {
				if ttl != 60 {
					t.Errorf("TTL %d, want 60", ttl)
				}
			}
		})
	}
	want := []Denial{
		{Kind: KindDNS, Target: "c2vjcmv0.evil.example", Reason: "not a host network.allow names"},
		{Kind: KindDNS, Target: "x.api.example.com", Reason: "not a host network.allow names"},
		{Kind: KindDNS, Target: "198.51.100.4", Reason: "an address is not a name to resolve"},
		{Kind: KindDNS, Target: "rebind.example.com", Reason: "answer withheld: 169.254.169.254 (link-local (the cloud metadata range))"},
		{Kind: KindDNS, Reason: "malformed query: no question that parses"},
	}
	if diff := cmp.Diff(want, s.Close()); diff != "" {
		t.Errorf("denials (-want +got):\n%s", diff)
	}
	// The answers bound the addresses: a connection to them is now allowed
	// on the rule's port without another lookup.
	lookups := upstream.lookups.Load()
	if ok, why := p.decide(context.Background(), netipAP("203.0.113.8:443")); !ok {
		t.Errorf("203.0.113.8:443 after the answer: refused (%s)", why)
	}
	if got := upstream.lookups.Load(); got != lookups {
		t.Errorf("the decision looked up %d names, want none", got-lookups)
	}
}

// TestResolverAnswersFromTheAddressAsked: the namespace delivers a query
// for any resolver address to the one socket; the reply must come from
// the address the stub asked, or the stub drops it.
func TestResolverAnswersFromTheAddressAsked(t *testing.T) {
	p := newPolicy(t, &fakeDNS{names: map[string][]string{"api.example.com": {"203.0.113.7"}}}, nil, "api.example.com")
	_, ask := resolverUnderTest(t, p, "0.0.0.0:0")
	for _, dst := range []string{"127.0.0.1", "127.0.0.53", "127.1.2.3"} {
		reply := ask(dst, query(t, "api.example.com.", dnsmessage.TypeA))
		if reply == nil {
			t.Errorf("a query sent to %s got no reply from %s", dst, dst)
			continue
		}
		if got := parseReply(t, reply).answers; len(got) != 1 || got[0] != "203.0.113.7" {
			t.Errorf("a query sent to %s: got answers %v", dst, got)
		}
	}
}

// TestRefusedQueriesAreListedOncePerName: glibc asks A and AAAA, and
// retries; one name is one denial.
func TestRefusedQueriesAreListedOncePerName(t *testing.T) {
	p := newPolicy(t, &fakeDNS{}, nil, "api.example.com")
	s, ask := resolverUnderTest(t, p, "127.0.0.1:0")
	for range 3 {
		ask("127.0.0.1", query(t, "leak.example.", dnsmessage.TypeA))
		ask("127.0.0.1", query(t, "leak.example.", dnsmessage.TypeAAAA))
	}
	if got := s.Close(); len(got) != 1 {
		t.Errorf("got %d denials %+v, want 1", len(got), got)
	}
}
