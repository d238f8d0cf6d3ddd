package egress

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
)

// MaxPorts is how many TCP ports a policy listens on, as in murmur: the
// lowest ones when the allow list implies more (Policy.Dropped).
const MaxPorts = 16

// Options are a policy's upstream hooks; the zero value uses the host's
// resolver and dialer.
type Options struct {
	// Resolve looks host up in the host's namespace. Default:
	// net.DefaultResolver.LookupNetIP(ctx, "ip4", host). Each call gets a
	// 5 s deadline and must return when ctx is done. An error that is a
	// *net.DNSError with IsNotFound is answered NXDOMAIN, others SERVFAIL.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial opens the upstream connection in the host's namespace.
	// Default: net.Dialer{Timeout: 10 s}.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// now is the clock (tests).
	now func() time.Time
}

// Policy is one run's subprocess egress decision, built once from the
// capsule's network.allow and shared by every call (Serve). It remembers
// the addresses its resolver handed out for allowed names. Safe for
// concurrent use.
type Policy struct {
	byName  map[string][]capsule.AllowRule     // rules whose host is a name
	byAddr  map[netip.Addr][]capsule.AllowRule // rules whose host is an IPv4 literal
	ports   []int
	dropped []int
	dial    func(ctx context.Context, network, addr string) (net.Conn, error)
	cache   *lookups
	bound   *bindings
}

// NewPolicy builds the policy of rules (capsule.ParseAllowEntry's, or
// Manifest.NetworkRules'). A rule with no host or a port outside 0-65535
// (which ParseAllowEntry never gives) is E-CAP-001. More than MaxPorts
// ports is not an error, as in murmur: the ports past the ceiling get no
// listener, so connections to them are refused (Dropped lists them for a
// warning).
func NewPolicy(rules []capsule.AllowRule, opts Options) (*Policy, error) {
	p := &Policy{
		byName: map[string][]capsule.AllowRule{},
		byAddr: map[netip.Addr][]capsule.AllowRule{},
		dial:   opts.Dial,
	}
	if p.dial == nil {
		p.dial = (&net.Dialer{Timeout: 10 * time.Second}).DialContext
	}
	resolve := opts.Resolve
	if resolve == nil {
		resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip4", host)
		}
	}
	now := opts.now
	if now == nil {
		now = time.Now
	}
	p.cache = &lookups{resolve: resolve, now: now, entries: map[string]*lookup{}}
	p.bound = &bindings{now: now, names: map[netip.Addr]map[string]time.Time{}}

	var ports []int
	for _, r := range rules {
		host := normalName(r.Host)
		if host == "" || r.Port < capsule.AnyPort || r.Port > 65535 {
			return nil, errcode.New(errcode.CapNetworkEntry, "invalid network allow entry '%s': not a host with a port from 0 to 65535", ruleText(r))
		}
		if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
			if a = a.Unmap(); a.Is4() {
				p.byAddr[a] = append(p.byAddr[a], r)
			} // an IPv6 literal is never reached: the namespace routes IPv4 only
		} else {
			p.byName[host] = append(p.byName[host], r)
		}
		switch {
		case r.Port == capsule.AnyPort:
			ports = append(ports, 80, 443)
		case r.Port > 0: // port 0 cannot be dialled: no listener
			ports = append(ports, r.Port)
		}
	}
	slices.Sort(ports)
	ports = slices.Compact(ports)
	if len(ports) > MaxPorts {
		p.ports, p.dropped = ports[:MaxPorts:MaxPorts], ports[MaxPorts:]
	} else {
		p.ports = ports
	}
	return p, nil
}

// ruleText is r as an allow entry, for messages.
func ruleText(r capsule.AllowRule) string {
	s := r.Host
	if r.Scheme != "" {
		s = r.Scheme + "://" + s
	}
	if r.Port != capsule.AnyPort {
		s = fmt.Sprintf("%s:%d", s, r.Port)
	}
	return s
}

// Ports are the TCP ports to listen on in a call's namespace, ascending:
// an explicit port, or 80 and 443 for a rule without one; at most
// MaxPorts. The slice must not be modified.
func (p *Policy) Ports() []int { return p.ports }

// Dropped are the ports past MaxPorts that get no listener (nil when
// none): murmur drops them the same way, without an error.
func (p *Policy) Dropped() []int { return p.dropped }

// normalName is host lowercased (ASCII only: Unicode case folding would
// let "\u212a" stand for "k") without a trailing dot.
func normalName(host string) string {
	host = strings.TrimSuffix(host, ".")
	b := []byte(host)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// portFits reports whether one of rules admits port. The scheme is not
// looked at: a TCP connection carries none, and the parser has folded an
// http(s) entry's scheme into its port.
func portFits(rules []capsule.AllowRule, port int) bool {
	for _, r := range rules {
		if r.Port == capsule.AnyPort || r.Port == port {
			return true
		}
	}
	return false
}

// decide says whether a connection to dst may be forwarded, and if not,
// why. It may look the allowed names up (cached for answerTTL) when no
// answer of the resolver bound dst's address.
func (p *Policy) decide(ctx context.Context, dst netip.AddrPort) (ok bool, reason string) {
	a, port := dst.Addr().Unmap(), int(dst.Port())
	if !a.Is4() {
		return false, "only IPv4 destinations are served"
	}
	if rules := p.byAddr[a]; len(rules) > 0 {
		if portFits(rules, port) {
			return true, ""
		}
		reason = fmt.Sprintf("network.allow names %s, but not port %d", a, port)
	}
	names := p.bound.namesOf(a)
	if len(names) == 0 {
		names = p.namesAtLaunch(ctx, a)
	}
	if len(names) == 0 {
		if reason == "" {
			reason = fmt.Sprintf("no network.allow entry names %s or a host that resolves to it", a)
		}
		return false, reason
	}
	slices.Sort(names) // the same reason whatever the map order
	for _, n := range names {
		if !nameMayReach(n, a) {
			return false, fmt.Sprintf("%s (from %s) is %s: only an entry naming the address reaches it", a, n, specialClass(a))
		}
		if portFits(p.byName[n], port) {
			return true, ""
		}
	}
	return false, fmt.Sprintf("network.allow does not allow port %d for %s", port, strings.Join(names, ", "))
}

// namesAtLaunch are the allowed names whose own lookup (the launch-time
// set, cached for answerTTL) gives a. It serves tools that did not ask the
// namespace's resolver: /etc/hosts, an address kept from an earlier call.
func (p *Policy) namesAtLaunch(ctx context.Context, a netip.Addr) []string {
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		out []string
	)
	for name := range p.byName { // at once: a slow name must not add up
		wg.Go(func() {
			addrs, err := p.cache.get(ctx, name)
			if err == nil && slices.Contains(addrs, a) {
				mu.Lock()
				out = append(out, name)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return out
}
