package egress

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	"golang.org/x/net/dns/dnsmessage"
)

const (
	// maxAnswers bounds the A records in a reply, so that with the longest
	// name it stays within a 512-byte datagram (12 + 259 + 8*16).
	maxAnswers = 8
	// maxDNSMessage is the largest query read; a longer one is malformed.
	maxDNSMessage = 4096
)

// answer is the resolver's reply to one datagram (nil: none is due) and
// the query it refused, if it refused one.
//
// An A query for an allowed name is answered with the name's IPv4
// addresses (looked up upstream, cached for answerTTL), which are then
// bound to the name; other types for an allowed name get NOERROR and no
// records. Every other query that has a header is REFUSED: unknown names,
// addresses given as names, opcodes other than QUERY, malformed
// questions. Responses are not answered. No query goes upstream as it
// came: the lookup is of the allow entry's own host.
func (p *Policy) answer(ctx context.Context, msg []byte) (reply []byte, refused *Denial) {
	var parser dnsmessage.Parser
	h, err := parser.Start(msg)
	if err != nil || h.Response {
		return nil, nil // no header to answer, or not a query
	}
	q, err := parser.Question()
	malformed := ""
	switch {
	case err != nil:
		malformed = "malformed query: no question that parses"
	case len(msg) > maxDNSMessage:
		malformed = fmt.Sprintf("malformed query: longer than %d bytes", maxDNSMessage)
	default:
		if _, err := parser.Question(); err != dnsmessage.ErrSectionDone {
			malformed = "malformed query: more than one question"
		}
	}
	if malformed != "" {
		return p.reply(h, nil, dnsmessage.RCodeRefused, nil), &Denial{Kind: KindDNS, Reason: malformed}
	}
	name := normalName(q.Name.String())
	if h.OpCode != 0 {
		return p.reply(h, &q, dnsmessage.RCodeRefused, nil), &Denial{Kind: KindDNS, Target: name, Reason: fmt.Sprintf("opcode %d is not a query", h.OpCode)}
	}
	if _, ok := p.byName[name]; !ok {
		why := "not a host network.allow names"
		if _, err := netip.ParseAddr(name); err == nil {
			why = "an address is not a name to resolve"
		}
		return p.reply(h, &q, dnsmessage.RCodeRefused, nil), &Denial{Kind: KindDNS, Target: name, Reason: why}
	}
	if q.Type != dnsmessage.TypeA || (q.Class != dnsmessage.ClassINET && q.Class != dnsmessage.ClassANY) {
		return p.reply(h, &q, dnsmessage.RCodeSuccess, nil), nil
	}
	addrs, err := p.cache.get(ctx, name)
	switch {
	case err != nil && notFound(err):
		return p.reply(h, &q, dnsmessage.RCodeNameError, nil), nil
	case err != nil:
		return p.reply(h, &q, dnsmessage.RCodeServerFailure, nil), nil
	}
	var kept []netip.Addr
	var withheld []string
	for _, a := range addrs {
		if nameMayReach(name, a) || len(p.byAddr[a]) > 0 {
			kept = append(kept, a)
		} else {
			withheld = append(withheld, fmt.Sprintf("%s (%s)", a, specialClass(a)))
		}
	}
	if len(kept) > maxAnswers {
		kept = kept[:maxAnswers]
	}
	p.bound.bind(name, kept)
	if len(withheld) > 0 {
		refused = &Denial{Kind: KindDNS, Target: name, Reason: "answer withheld: " + strings.Join(withheld, ", ")}
	}
	return p.reply(h, &q, dnsmessage.RCodeSuccess, kept), refused
}

// reply builds the response to the query with header h: the question
// echoed (as parsed; none when it was malformed), rcode, and an A record
// per address with TTL answerTTL.
func (p *Policy) reply(h dnsmessage.Header, q *dnsmessage.Question, rcode dnsmessage.RCode, addrs []netip.Addr) []byte {
	b := dnsmessage.NewBuilder(make([]byte, 0, 512), dnsmessage.Header{
		ID:                 h.ID,
		Response:           true,
		OpCode:             h.OpCode,
		RecursionDesired:   h.RecursionDesired,
		RecursionAvailable: true,
		RCode:              rcode,
	})
	b.EnableCompression()
	// The builder fails only on a section out of order or a name it cannot
	// pack; q came out of the parser, so neither happens.
	if q != nil {
		_ = b.StartQuestions()
		_ = b.Question(*q)
		_ = b.StartAnswers()
		for _, a := range addrs {
			_ = b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET, TTL: uint32(answerTTL.Seconds())},
				dnsmessage.AResource{A: a.As4()})
		}
	}
	out, err := b.Finish()
	if err != nil {
		return nil
	}
	return out
}
