package httpapi

import (
	"net/http"
	"time"
)

// Reasons of a ConnectionChange.
const (
	ReasonRateLimited = "429"       // the endpoint answered 429 Too Many Requests
	ReasonUnavailable = "503"       // the endpoint answered 503 Service Unavailable
	ReasonRecovered   = "recovered" // a limit's worth of answers came without one
)

// aimd is the arithmetic of one endpoint's adaptive limit: additive
// increase, multiplicative decrease (RATIONALE.md, "Why AIMD for
// --connections adaptive?"). It holds no lock and reads no clock: gate
// calls it under its mutex with the time.
type aimd struct {
	// max is --max-connections, 0 for no bound; ceiling is the limit's
	// upper bound: max, or once an unbounded endpoint first adapts, the
	// larger of the run's workers and the most requests seen in flight.
	max, ceiling int
	workers      int
	// limit is the requests allowed in flight, 0 while unbounded.
	limit int
	// cut is the last ticket handed out when the limit was last halved:
	// an answer to a request sent before (ticket <= cut) does not halve
	// it again, so one burst of 429s is one decrease.
	cut uint64
	// good counts the successful answers since the last change, to
	// requests sent after the last decrease: an answer to one sent before
	// says nothing of the new limit.
	good int
	// hold is when the endpoint's last Retry-After ends: no request
	// starts and the limit does not grow before it.
	hold time.Time
}

func newAIMD(max, workers int) aimd {
	return aimd{max: max, ceiling: max, workers: workers, limit: max}
}

// change is one change of the limit; from is the requests that were in
// flight when an unbounded endpoint first adapted.
type change struct {
	from, to int
	reason   string
}

// answered takes the answer (its HTTP status) to the request with ticket
// t, sent when inflight requests (this one included) were in flight and
// at most peak ever had been; last is the newest ticket handed out. It
// returns the limit's change, if any. retryAfter is the answer's
// Retry-After, nil when it had none.
func (a *aimd) answered(t, last uint64, inflight, peak, status int, retryAfter *time.Duration, now time.Time) (change, bool) {
	throttled := status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable
	if throttled && retryAfter != nil {
		if until := now.Add(*retryAfter); until.After(a.hold) {
			a.hold = until
		}
	}
	switch {
	case throttled && t > a.cut:
		unbounded := a.limit == 0
		c := a.decrease(last, inflight, peak, status)
		return c, c.from != c.to || unbounded // 1 in flight with no bound: now a limit of 1
	case throttled, status < 200 || status > 299, t <= a.cut:
		return change{}, false
	}
	a.good++
	if a.limit == 0 || a.limit >= a.ceiling || a.good < a.limit || now.Before(a.hold) {
		return change{}, false
	}
	a.good = 0
	a.limit++
	return change{from: a.limit - 1, to: a.limit, reason: ReasonRecovered}, true
}

// decrease halves the limit (at least 1). An unbounded endpoint starts
// from the requests in flight and gets its ceiling.
func (a *aimd) decrease(last uint64, inflight, peak, status int) change {
	from := a.limit
	if from == 0 {
		from = max(inflight, 1)
		a.ceiling = max(a.workers, peak, 1)
	}
	a.limit = max(from/2, 1)
	a.cut, a.good = last, 0
	reason := ReasonRateLimited
	if status == http.StatusServiceUnavailable {
		reason = ReasonUnavailable
	}
	return change{from: from, to: a.limit, reason: reason}
}
