package httpapi

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestGuestAdaptsTo429s: a driver's requests (GuestClient under
// WithRetries) share the endpoint's adaptive limit: against a server that
// answers 429 whenever more than one request is in flight, every request
// ends 200 after its retries and the limit came down from 8.
func TestGuestAdaptsTo429s(t *testing.T) {
	var inflight, throttled atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer inflight.Add(-1)
		_, _ = io.ReadAll(r.Body)
		if inflight.Add(1) > 1 {
			throttled.Add(1)
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		time.Sleep(5 * time.Millisecond)
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	c := NewClient(Options{MaxConnections: 8, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, MaxRetries: 50})
	hc := c.GuestClient()
	ctx := WithRetries(context.Background(), &retryList{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 4 {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader("turn"))
				resp, err := hc.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("status %d after the retries, want 200", resp.StatusCode)
				}
			}
		})
	}
	wg.Wait()
	got := c.Connections()
	if throttled.Load() == 0 || len(got) != 1 || got[0].Decreases == 0 || got[0].Min > 4 || got[0].Max != 8 {
		t.Errorf("%d 429s; ranges %+v: want one endpoint lowered from 8 to 4 or less", throttled.Load(), got)
	}
}
