package driver

import (
	"sync"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// turnLog collects what the host sees of the driver's requests during one
// turn (httpapi.GuestObserver): the retries the run's HTTP policy made and
// each request's outcome. The guest's requests are sent on goroutines of
// their own, and the case's observer is used on the case's goroutine only.
// Reports after flush (a request the driver left running) are dropped.
type turnLog struct {
	mu        sync.Mutex
	retries   []inference.Retry
	exchanges []httpapi.Exchange
	closed    bool
}

// Retried keeps r until flush.
func (l *turnLog) Retried(r inference.Retry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.retries = append(l.retries, r)
	}
}

// Exchanged keeps x until flush.
func (l *turnLog) Exchanged(x httpapi.Exchange) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.exchanges = append(l.exchanges, x)
	}
}

// Cached does nothing: the cache answers outside the driver.
func (l *turnLog) Cached(bool) {}

// Diverged does nothing: a live driver has no recording to diverge from.
func (l *turnLog) Diverged(inference.Divergence) {}

// flush reports the retries to obs, in order, closes the log and returns
// the exchanges.
func (l *turnLog) flush(obs inference.Observer) []httpapi.Exchange {
	l.mu.Lock()
	list, exchanges := l.retries, l.exchanges
	l.retries, l.exchanges, l.closed = nil, nil, true
	l.mu.Unlock()
	for _, r := range list {
		obs.Retried(r)
	}
	return exchanges
}

// harnessError is the harness error of a turn the driver failed (status
// not passed, or a failed invocation), nil when what the host saw leaves
// the driver's verdict standing. In order: the endpoint declared
// unreachable (E-EVL-018, which stops the run), credentials refused
// (E-EVL-014), a request the driver's network.allow denied (E-EVL-081),
// the last request left with no answer after the retries (E-EVL-016). An
// answer the provider gave (a 400, a 429 whose retries ran out) is the
// model's side: the driver's failure stands, as under murmur.
func harnessError(exchanges []httpapi.Exchange, denied []string, driverText string) error {
	for _, x := range exchanges {
		if errcode.Is(x.Err, errcode.EndpointUnreachable) {
			return x.Err
		}
	}
	for _, x := range exchanges {
		if err := x.HarnessError(driverText); err != nil && x.Err == nil {
			return err
		}
	}
	if len(denied) > 0 {
		return errcode.New(errcode.MurmurEndpointDenied,
			"driver: its request to %s was denied by its network.allow (the driver ended the turn with %q)", denied[0], httpapi.Snippet([]byte(driverText))).
			WithHint("add %s to capabilities.network.allow in murmur.yaml (and to the driver artifact's own network.allow if it declares one)", denied[0])
	}
	if n := len(exchanges); n > 0 {
		return exchanges[n-1].HarnessError(driverText)
	}
	return nil
}

// providerUsage is the usage the provider reported in the 2xx answers the
// driver read during the turn, summed; nil when none carried one.
func providerUsage(exchanges []httpapi.Exchange) *inference.Usage {
	var sum *inference.Usage
	for _, x := range exchanges {
		u := httpapi.ReportedUsage(x.Body)
		if u == nil {
			continue
		}
		if sum == nil {
			sum = &inference.Usage{}
		}
		sum.InputTokens = trace.AddTokens(sum.InputTokens, u.InputTokens)
		sum.OutputTokens = trace.AddTokens(sum.OutputTokens, u.OutputTokens)
		sum.CachedInputTokens = trace.AddTokens(sum.CachedInputTokens, u.CachedInputTokens)
	}
	return sum
}
