package httpapi

import (
	"math"
	"net/http"
	"testing"
	"time"
)

func TestBackoffGrowsWithJitterAndCap(t *testing.T) {
	none := func(time.Duration) time.Duration { return 0 }
	full := func(d time.Duration) time.Duration { return d }
	tests := []struct {
		n        int
		min, max time.Duration
	}{
		{1, 50 * time.Millisecond, 100 * time.Millisecond},
		{2, 100 * time.Millisecond, 200 * time.Millisecond},
		{4, 400 * time.Millisecond, 800 * time.Millisecond},
		{6, 500 * time.Millisecond, time.Second}, // capped at 1s
		{500, 500 * time.Millisecond, time.Second},
	}
	for _, tt := range tests {
		lo := backoff(tt.n, 100*time.Millisecond, time.Second, none)
		hi := backoff(tt.n, 100*time.Millisecond, time.Second, full)
		if lo != tt.min || hi != tt.max {
			t.Errorf("backoff(%d) spans [%s, %s], want [%s, %s]", tt.n, lo, hi, tt.min, tt.max)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{"none", nil, 0, false},
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second, true},
		{"zero", map[string]string{"Retry-After": "0"}, 0, true},
		{"fraction", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond, true},
		{"http date", map[string]string{"Retry-After": "Sun, 01 Mar 2026 12:00:30 GMT"}, 30 * time.Second, true},
		{"date in the past", map[string]string{"Retry-After": "Sun, 01 Mar 2026 11:00:00 GMT"}, 0, true},
		{"milliseconds win", map[string]string{"Retry-After": "7", "retry-after-ms": "250"}, 250 * time.Millisecond, true},
		{"bad ms falls back", map[string]string{"Retry-After": "2", "retry-after-ms": "soon"}, 2 * time.Second, true},
		{"negative", map[string]string{"Retry-After": "-3"}, 0, false},
		{"garbage", map[string]string{"Retry-After": "tomorrow"}, 0, false},
		{"huge saturates", map[string]string{"Retry-After": "1e300"}, math.MaxInt64, true},
		{"infinite saturates", map[string]string{"Retry-After": "Inf"}, math.MaxInt64, true},
		{"a day", map[string]string{"Retry-After": "86400"}, 24 * time.Hour, true},
		{"huge ms saturates", map[string]string{"Retry-After": "1", "retry-after-ms": "1e30"}, math.MaxInt64, true},
		{"NaN", map[string]string{"Retry-After": "NaN"}, 0, false},
		{"date centuries ahead", map[string]string{"Retry-After": "Fri, 01 Mar 2999 12:00:00 GMT"}, math.MaxInt64, true},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.header {
			h.Set(k, v)
		}
		got, ok := retryAfter(h, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: retryAfter = %s, %v; want %s, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzRetryAfter: the header is the server's, untrusted; a wait is never
// negative.
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"1", "0.5", "Wed, 21 Oct 2015 07:28:00 GMT", "-1", "NaN", "Inf", "1e18", "1e400", "86400"} {
		f.Add(s, "")
	}
	f.Add("", "100")
	f.Fuzz(func(t *testing.T, ra, ms string) {
		h := http.Header{}
		h.Set("Retry-After", ra)
		h.Set("retry-after-ms", ms)
		if d, ok := retryAfter(h, time.Now()); ok && d < 0 {
			t.Fatalf("retryAfter(%q, %q) = %s", ra, ms, d)
		}
	})
}

func TestEndpointKey(t *testing.T) {
	for in, want := range map[string]string{
		"https://API.anthropic.com/v1/messages":  "https://api.anthropic.com:443",
		"https://api.anthropic.com:443/x":        "https://api.anthropic.com:443",
		"http://127.0.0.1:8080/v1/chat/complete": "http://127.0.0.1:8080",
		"http://localhost/v1":                    "http://localhost:80",
	} {
		if got := endpointKey(in); got != want {
			t.Errorf("endpointKey(%q) = %q, want %q", in, got, want)
		}
	}
}
