package httpapi

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// backoff is the pause before retry number n (1 for the first retry):
// exponential from base, capped at max, with "equal jitter" (half fixed,
// half random) so cases that failed together do not retry together.
func backoff(n int, base, max time.Duration, jitter func(time.Duration) time.Duration) time.Duration {
	d := max
	if n < 63 {
		if f := float64(base) * math.Pow(2, float64(n-1)); f < float64(max) {
			d = time.Duration(f)
		}
	}
	half := d / 2
	return half + jitter(d-half)
}

// retryAfter reads how long the server asked to wait: retry-after-ms
// (OpenAI), else Retry-After as delay-seconds or an HTTP-date (RFC 9110
// §10.2.3). ok is false when neither header is there or parses; a date in
// the past is a zero wait. A wait too long to represent (Retry-After:
// 1e300, a date centuries ahead) saturates at the longest Duration rather
// than being ignored: ignored, it would have been retried with backoff
// until the case's deadline; saturated, it is longer than MaxRetryAfter and
// ends the request at once.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if d, ok := wait(v, time.Millisecond); ok {
			return d, true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if d, ok := wait(v, time.Second); ok {
		return d, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}

// wait reads a non-negative number of units, saturating at the longest
// Duration; NaN, negative numbers and non-numbers are not a wait.
func wait(v string, unit time.Duration) (time.Duration, bool) {
	n, err := strconv.ParseFloat(v, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) { // ErrRange: ±Inf or 0, still meant as a number
		return 0, false
	}
	if math.IsNaN(n) || n < 0 {
		return 0, false
	}
	if f := n * float64(unit); f < float64(math.MaxInt64) {
		return time.Duration(f), true
	}
	return time.Duration(math.MaxInt64), true
}
