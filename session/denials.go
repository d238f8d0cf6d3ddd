package session

import (
	"sync"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/sandbox/egress"
)

// Denials are the wasi:http requests a case's guests (tools, the driver)
// made outside their allow lists, and the connections and lookups of its
// subprocesses the egress proxy refused, kept from the guest's call until the
// loop writes them to the trace (network_denied events). The zero value is
// ready; a nil *Denials drops what it is given.
type Denials struct {
	mu   sync.Mutex
	list []Denial
}

// Denial is one refused request: the artifact that made it and the
// scheme://host:port it was for. A subprocess's refusals, from the egress
// proxy, also say which channel (tcp, dns) and why.
type Denial struct {
	Artifact string
	Target   string
	Channel  string
	Reason   string
}

// Add keeps a refused request.
func (d *Denials) Add(artifact string, t capsule.Target) {
	if d == nil {
		return
	}
	d.mu.Lock()
	d.list = append(d.list, Denial{Artifact: artifact, Target: t.Entry()})
	d.mu.Unlock()
}

// AddProxied keeps what the egress proxy refused a subprocess (a shell or
// native tool): a connection to host:port (channel tcp) or a lookup of a
// name (channel dns).
func (d *Denials) AddProxied(artifact string, denied []egress.Denial) {
	if d == nil || len(denied) == 0 {
		return
	}
	d.mu.Lock()
	for _, e := range denied {
		d.list = append(d.list, Denial{Artifact: artifact, Target: e.Target, Channel: e.Kind, Reason: e.Reason})
	}
	d.mu.Unlock()
}

// Take returns what was kept since the last Take, in order.
func (d *Denials) Take() []Denial {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	list := d.list
	d.list = nil
	return list
}
