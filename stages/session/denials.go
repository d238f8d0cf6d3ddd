package session

import (
	"sync"

	"github.com/murmur-nexus/murmur-eval/capsule"
)

// Denials are the wasi:http requests a case's guests (tools, the driver)
// made outside their allow lists, kept from the guest's call until the
// loop writes them to the trace (network_denied events). The zero value is
// ready; a nil *Denials drops what it is given.
type Denials struct {
	mu   sync.Mutex
	list []Denial
}

// Denial is one refused request: the artifact that made it and the
// scheme://host:port it was for.
type Denial struct {
	Artifact string
	Target   string
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
