package egress

import (
	"errors"
	"net"

	"golang.org/x/net/ipv4"
)

// serveDNS answers the queries arriving on conn until the session shuts
// down, up to dnsWorkers at once.
//
// The socket is bound to the wildcard address and the namespace's route
// delivers a query for any resolver address to it, so each reply is sent
// from the address its query was sent to (IP_PKTINFO): a stub resolver
// drops an answer from an address it did not ask.
func (s *Session) serveDNS(conn net.PacketConn) {
	defer s.wg.Done()
	pc := ipv4.NewPacketConn(conn)
	withDst := pc.SetControlMessage(ipv4.FlagDst, true) == nil
	sem := make(chan struct{}, dnsWorkers)
	for {
		buf := make([]byte, maxDNSMessage+1)
		n, cm, from, err := pc.ReadFrom(buf)
		if err != nil {
			if s.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			continue // a datagram error (ICMP for an earlier reply): read on
		}
		var src *ipv4.ControlMessage
		if withDst && cm != nil && cm.Dst != nil {
			src = &ipv4.ControlMessage{Src: cm.Dst}
		}
		select {
		case sem <- struct{}{}:
		case <-s.ctx.Done():
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() { <-sem }()
			reply, refused := s.p.answer(s.ctx, buf[:n])
			if refused != nil {
				s.deny(*refused)
			}
			if reply != nil && s.ctx.Err() == nil {
				_, _ = pc.WriteTo(reply, src, from)
			}
		}()
	}
}
