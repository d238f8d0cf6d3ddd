package egress

import (
	"context"
	"net/netip"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// FuzzAnswer feeds the resolver arbitrary datagrams: it never panics, a
// reply is a response to the datagram's ID that fits in 512 bytes, and
// records are only ever A records of the one allowed name, with ordinary
// addresses.
func FuzzAnswer(f *testing.F) {
	for _, q := range []struct {
		name string
		typ  dnsmessage.Type
	}{
		{"api.example.com.", dnsmessage.TypeA}, {"API.example.com.", dnsmessage.TypeAAAA}, {"api.example.com.", dnsmessage.TypeTXT},
		{"evil.example.", dnsmessage.TypeA}, {"1.2.3.4.", dnsmessage.TypeA}, {".", dnsmessage.TypeA},
	} {
		f.Add(query(f, q.name, q.typ))
	}
	f.Add([]byte{})
	f.Add([]byte{0x12, 0x34, 0x01, 0x00, 0, 2, 0, 0, 0, 0, 0, 0, 3, 'a', 'p', 'i', 0xc0, 0x0c, 0, 1, 0, 1})
	upstream := &fakeDNS{names: map[string][]string{"api.example.com": {"203.0.113.7", "169.254.169.254", "127.0.0.1", "2001:db8::1"}}}
	p := newPolicy(f, upstream, nil, "api.example.com", "1.2.3.4")

	f.Fuzz(func(t *testing.T, msg []byte) {
		reply, _ := p.answer(context.Background(), msg)
		if reply == nil {
			return
		}
		if len(msg) < 12 {
			t.Fatalf("a reply to a %d-byte datagram", len(msg))
		}
		if len(reply) > 512 {
			t.Fatalf("reply of %d bytes", len(reply))
		}
		var m dnsmessage.Message
		if err := m.Unpack(reply); err != nil {
			t.Fatalf("reply does not parse: %v", err)
		}
		if !m.Response || m.ID != uint16(msg[0])<<8|uint16(msg[1]) {
			t.Fatalf("reply header %+v does not answer ID % x", m.Header, msg[:2])
		}
		if len(m.Authorities)+len(m.Additionals) > 0 {
			t.Fatalf("reply has %d authority and %d additional records", len(m.Authorities), len(m.Additionals))
		}
		for _, a := range m.Answers {
			r, ok := a.Body.(*dnsmessage.AResource)
			if !ok || normalName(a.Header.Name.String()) != "api.example.com" {
				t.Fatalf("answer %v for a name or type not allowed", a)
			}
			if addr := netip.AddrFrom4(r.A); addr.String() != "203.0.113.7" {
				t.Fatalf("answer %s: not the allowed name's ordinary address", addr)
			}
		}
	})
}
