package driver

import (
	"sync"

	"github.com/murmur-nexus/murmur-eval/inference"
)

// retryLog collects the retries the run's HTTP policy reports while the
// driver runs: the guest's requests are sent on goroutines of their own,
// and the case's observer is used on the case's goroutine only. Reports
// after flush (a request the driver left running) are dropped.
type retryLog struct {
	mu     sync.Mutex
	list   []inference.Retry
	closed bool
}

// Retried keeps r until flush.
func (l *retryLog) Retried(r inference.Retry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.list = append(l.list, r)
	}
}

// Diverged does nothing: a live driver has no recording to diverge from.
func (l *retryLog) Diverged(inference.Divergence) {}

// flush reports what was kept to obs, in order, and closes the log.
func (l *retryLog) flush(obs inference.Observer) {
	l.mu.Lock()
	list := l.list
	l.list, l.closed = nil, true
	l.mu.Unlock()
	for _, r := range list {
		obs.Retried(r)
	}
}
