package httpapi

import (
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
// the past is a zero wait.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 || s > 1e9 || math.IsNaN(s) {
			return 0, false
		}
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}
