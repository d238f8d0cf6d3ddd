package httpapi

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// limiter bounds concurrent requests per endpoint (scheme, host and port),
// across every case of a run: a gate per endpoint, fixed at
// --max-connections or adapting to the endpoint's 429 and 503 answers
// (aimd.go). Fixed with no bound, it lets every request through.
type limiter struct {
	max      int
	workers  int
	adaptive bool
	maxHold  time.Duration
	now      func() time.Time
	onChange func(ConnectionChange)

	mu    sync.Mutex
	gates map[string]*gate
}

func newLimiter(o Options) *limiter {
	return &limiter{max: o.MaxConnections, workers: o.Workers, adaptive: !o.FixedConnections, maxHold: o.MaxRetryAfter, now: o.Now,
		onChange: o.OnConnections, gates: map[string]*gate{}}
}

// acquire waits for a slot for rawURL's endpoint; the slot's release
// frees it, its answered tells the endpoint's gate how the request went.
// It fails only when ctx ends.
func (l *limiter) acquire(ctx context.Context, rawURL string) (*slot, error) {
	if l.max <= 0 && !l.adaptive {
		return &slot{}, nil
	}
	return l.gate(endpointKey(rawURL)).acquire(ctx)
}

func (l *limiter) gate(key string) *gate {
	l.mu.Lock()
	defer l.mu.Unlock()
	g, ok := l.gates[key]
	if !ok {
		g = newGate(key, l)
		l.gates[key] = g
	}
	return g
}

// ranges are the endpoints' ranges, by endpoint: those with a bound, and
// those with none that adapted.
func (l *limiter) ranges() []ConnectionRange {
	l.mu.Lock()
	gates := make([]*gate, 0, len(l.gates))
	for _, g := range l.gates {
		gates = append(gates, g)
	}
	l.mu.Unlock()
	var out []ConnectionRange
	for _, g := range gates {
		if r := g.span(); r.Max > 0 {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b ConnectionRange) int { return strings.Compare(a.Endpoint, b.Endpoint) })
	return out
}

// endpointKey is scheme://host:port, lowercased, with the default port
// spelled out, so two spellings of one endpoint share a bound.
func endpointKey(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme + "://" + u.Hostname() + ":" + port)
}
