//go:build linux

package main

import (
	"bytes"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
)

// ecHost is the host's side of the network cases: a TCP listener and a UDP
// receiver on 127.0.0.1 at ports not in network.allow, and a fake resolver
// on 127.0.0.1:53 (where libc asks when it cannot read /etc/resolv.conf)
// that records every name and answers "no such name". Nothing leaves the
// machine.
type ecHost struct {
	tcpPort, udpPort int
	dnsSkip          string // why the DNS case does not run; "" when it does

	tcp      net.Listener
	udp, dns net.PacketConn
	wg       sync.WaitGroup

	mu       sync.Mutex
	accepts  int
	datagram [][]byte
	queries  []string
}

func startECHost(t *testing.T, token string, ci bool) *ecHost {
	t.Helper()
	h := &ecHost{}
	var err error
	if h.tcp, err = net.Listen("tcp4", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	h.tcpPort = h.tcp.Addr().(*net.TCPAddr).Port
	if h.udp, err = net.ListenPacket("udp4", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	h.udpPort = h.udp.LocalAddr().(*net.UDPAddr).Port
	if h.dns, err = net.ListenPacket("udp4", "127.0.0.1:53"); err != nil {
		// Never let the probe's query go to a real resolver instead.
		if ci {
			t.Fatalf("the fake resolver needs 127.0.0.1:53, and CI is set: %v", err)
		}
		h.dnsSkip = fmt.Sprintf("dns-exfiltration not run: 127.0.0.1:53 is taken here (%v), and its query must reach no real resolver", err)
		h.dns = nil
	}
	t.Cleanup(h.stop)

	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		for {
			c, err := h.tcp.Accept()
			if err != nil {
				return
			}
			h.mu.Lock()
			h.accepts++
			h.mu.Unlock()
			_, _ = c.Write([]byte("host listener " + token + "\n"))
			c.Close()
		}
	}()
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		buf := make([]byte, 2048)
		for {
			n, _, err := h.udp.ReadFrom(buf)
			if err != nil {
				return
			}
			h.mu.Lock()
			h.datagram = append(h.datagram, slices.Clone(buf[:n]))
			h.mu.Unlock()
		}
	}()
	if h.dns != nil {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			buf := make([]byte, 2048)
			for {
				n, from, err := h.dns.ReadFrom(buf)
				if err != nil {
					return
				}
				name, reply, ok := dnsNoSuchName(buf[:n])
				if !ok {
					continue
				}
				h.mu.Lock()
				h.queries = append(h.queries, name)
				h.mu.Unlock()
				_, _ = h.dns.WriteTo(reply, from)
			}
		}()
	}
	return h
}

// stop closes the host's sockets and waits for their readers; the counts
// are final after it.
func (h *ecHost) stop() {
	h.tcp.Close()
	h.udp.Close()
	if h.dns != nil {
		h.dns.Close()
	}
	h.wg.Wait()
}

func (h *ecHost) tcpAccepts() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.accepts
}

func (h *ecHost) udpSaw(payload string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.ContainsFunc(h.datagram, func(d []byte) bool { return bytes.Contains(d, []byte(payload)) })
}

func (h *ecHost) dnsQueriesWith(label string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var names []string
	for _, q := range h.queries {
		if strings.Contains(strings.ToLower(q), strings.ToLower(label)) {
			names = append(names, q)
		}
	}
	return names
}

// dnsNoSuchName reads a DNS query's first question and builds the answer
// NXDOMAIN to it. ok is false for anything that is not a well-formed query
// with one question.
func dnsNoSuchName(query []byte) (name string, reply []byte, ok bool) {
	const header = 12
	if len(query) < header || query[2]&0x80 != 0 || query[4] != 0 || query[5] != 1 {
		return "", nil, false
	}
	var labels []string
	i := header
	for {
		if i >= len(query) {
			return "", nil, false
		}
		n := int(query[i])
		i++
		if n == 0 {
			break
		}
		if n > 63 || i+n > len(query) || len(labels) >= 127 {
			return "", nil, false
		}
		labels = append(labels, string(query[i:i+n]))
		i += n
	}
	if i+4 > len(query) { // QTYPE, QCLASS
		return "", nil, false
	}
	end := i + 4
	reply = make([]byte, end)
	copy(reply, query[:end])
	reply[2] = 0x80 | query[2]&0x79 // QR, the query's opcode and RD
	reply[3] = 0x80 | 3             // RA, RCODE 3: NXDOMAIN
	reply[6], reply[7], reply[8], reply[9], reply[10], reply[11] = 0, 0, 0, 0, 0, 0
	return strings.Join(labels, "."), reply, true
}

// FuzzDNSNoSuchName: the fake resolver reads what a hostile tool sends; it
// must never panic, and an answer echoes the question it read.
func FuzzDNSNoSuchName(f *testing.F) {
	f.Add([]byte("\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x02ec\x07example\x00\x00\x01\x00\x01"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, q []byte) {
		name, reply, ok := dnsNoSuchName(q)
		if !ok {
			return
		}
		if len(reply) < 12 || reply[0] != q[0] || reply[1] != q[1] || reply[3]&0x0f != 3 {
			t.Fatalf("reply %x to %x", reply, q)
		}
		if len(name) > 127*64 {
			t.Fatalf("name of %d bytes", len(name))
		}
	})
}
