package httpapi

import (
	"context"
	"net/url"
	"strings"
	"sync"

	"golang.org/x/sync/semaphore"
)

// limiter bounds concurrent requests per endpoint (scheme, host and port),
// across every case of a run. A zero max means no bound.
type limiter struct {
	max int64

	mu   sync.Mutex
	sems map[string]*semaphore.Weighted
}

func newLimiter(max int) *limiter {
	return &limiter{max: int64(max), sems: map[string]*semaphore.Weighted{}}
}

// acquire waits for a slot for rawURL's endpoint; the returned func
// releases it. It fails only when ctx ends.
func (l *limiter) acquire(ctx context.Context, rawURL string) (func(), error) {
	if l.max <= 0 {
		return func() {}, nil
	}
	sem := l.sem(endpointKey(rawURL))
	if err := sem.Acquire(ctx, 1); err != nil {
		return nil, err
	}
	return func() { sem.Release(1) }, nil
}

func (l *limiter) sem(key string) *semaphore.Weighted {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, ok := l.sems[key]
	if !ok {
		s = semaphore.NewWeighted(l.max)
		l.sems[key] = s
	}
	return s
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
