package egress

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"slices"
	"sync"
	"time"
)

// Lookup and binding lifetimes.
const (
	// answerTTL is the TTL of every record the resolver gives and how long
	// an upstream answer is reused: one lookup per allowed name a minute
	// per run, not one per shell call.
	answerTTL = 60 * time.Second
	// bindingLife is how long an address handed to a tool stays bound to
	// its name: longer than answerTTL, so a client that keeps an answer a
	// little past its TTL is not refused a connection it was told about.
	bindingLife = 5 * time.Minute
	// lookupTimeout bounds one upstream lookup.
	lookupTimeout = 5 * time.Second
)

// lookups is the policy's cache of upstream answers for allowed names,
// shared by every call of the run. Concurrent callers asking for one name
// share one lookup. Safe for concurrent use.
type lookups struct {
	resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	now     func() time.Time

	mu      sync.Mutex
	entries map[string]*lookup
}

// lookup is one upstream answer; ready is closed once addrs and err are
// set.
type lookup struct {
	ready   chan struct{}
	addrs   []netip.Addr
	err     error
	expires time.Time
}

// get returns host's IPv4 addresses, from the cache while they are
// fresh. A failed lookup is not kept (a lookup that found no such name
// is: that is an answer).
func (l *lookups) get(ctx context.Context, host string) ([]netip.Addr, error) {
	l.mu.Lock()
	e := l.entries[host]
	if e != nil {
		select {
		case <-e.ready:
			if l.now().After(e.expires) {
				e = nil
			}
		default: // in flight: wait for it below
		}
	}
	owner := e == nil
	if owner {
		e = &lookup{ready: make(chan struct{})}
		l.entries[host] = e
	}
	l.mu.Unlock()

	if owner {
		lctx, cancel := context.WithTimeout(ctx, lookupTimeout)
		addrs, err := l.resolve(lctx, host)
		cancel()
		e.addrs, e.err = ipv4Only(addrs), err
		e.expires = l.now().Add(answerTTL)
		if err != nil && !notFound(err) {
			l.mu.Lock()
			if l.entries[host] == e {
				delete(l.entries, host)
			}
			l.mu.Unlock()
		}
		close(e.ready)
	}
	select {
	case <-e.ready:
		if !owner && errors.Is(e.err, context.Canceled) && ctx.Err() == nil {
			// The call that looked it up ended; this one has not.
			return l.get(ctx, host)
		}
		return e.addrs, e.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ipv4Only keeps the IPv4 addresses (IPv4-mapped IPv6 ones unmapped),
// each once.
func ipv4Only(addrs []netip.Addr) []netip.Addr {
	var out []netip.Addr
	for _, a := range addrs {
		a = a.Unmap()
		if !a.Is4() {
			continue
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// notFound reports whether err says the name does not exist (NXDOMAIN),
// as opposed to a lookup that failed.
func notFound(err error) bool {
	var de *net.DNSError
	return errors.As(err, &de) && de.IsNotFound
}

// bindings records which allowed names the resolver handed each address
// out for, so a later connection to the address is decided by the name's
// rules. Entries expire after bindingLife. Safe for concurrent use.
type bindings struct {
	now func() time.Time

	mu    sync.Mutex
	names map[netip.Addr]map[string]time.Time // address -> name -> expiry
}

// bind records that name resolved to addrs, pruning expired entries.
func (b *bindings) bind(name string, addrs []netip.Addr) {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	for a, names := range b.names {
		for n, exp := range names {
			if now.After(exp) {
				delete(names, n)
			}
		}
		if len(names) == 0 {
			delete(b.names, a)
		}
	}
	for _, a := range addrs {
		if b.names[a] == nil {
			b.names[a] = map[string]time.Time{}
		}
		b.names[a][name] = now.Add(bindingLife)
	}
}

// namesOf lists the unexpired names bound to a.
func (b *bindings) namesOf(a netip.Addr) []string {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for n, exp := range b.names[a] {
		if !now.After(exp) {
			out = append(out, n)
		}
	}
	return out
}
