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

	"go.opentelemetry.io/otel/trace"

	"github.com/murmur-nexus/murmur-eval/inference"
)

type retryList struct {
	mu        sync.Mutex
	got       []inference.Retry
	exchanges []Exchange
}

func (r *retryList) Exchanged(x Exchange) {
	r.mu.Lock()
	r.exchanges = append(r.exchanges, x)
	r.mu.Unlock()
}

func (r *retryList) Cached(bool) {}
func (r *retryList) Retried(x inference.Retry) {
	r.mu.Lock()
	r.got = append(r.got, x)
	r.mu.Unlock()
}
func (r *retryList) Diverged(inference.Divergence) {}

func fastClient(maxConns int) *Client {
	return NewClient(Options{MaxConnections: maxConns, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxRetries: 3})
}

// TestGuestRetriesOnlyUnderWithRetries: a 429 then a 503 then a 200 are
// retried (body sent again, each retry reported with its Retry-After)
// for a request under WithRetries; without it the 429 goes back to the
// guest as is, the request sent once.
func TestGuestRetriesOnlyUnderWithRetries(t *testing.T) {
	var n atomic.Int32
	var bodies []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		switch n.Add(1) % 3 {
		case 1:
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
		case 2:
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			_, _ = io.WriteString(w, "ok")
		}
	}))
	defer srv.Close()
	hc := fastClient(0).GuestClient()
	post := func(ctx context.Context) *http.Response {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader("payload"))
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return resp
	}
	obs := &retryList{}
	if resp := post(WithRetries(context.Background(), obs)); resp.StatusCode != 200 {
		t.Errorf("under WithRetries: status %d, want 200", resp.StatusCode)
	}
	if len(obs.got) != 2 || obs.got[0].Reason != inference.RetryRateLimited || obs.got[0].RetryAfter == nil ||
		obs.got[1].Reason != inference.RetryServer || obs.got[1].Status != 503 || obs.got[1].Attempt != 2 {
		t.Errorf("retries %+v, want a rate_limited one with Retry-After, then a server_error one", obs.got)
	}
	if strings.Join(bodies, ",") != "payload,payload,payload" {
		t.Errorf("bodies %q, want the payload every attempt", bodies)
	}
	if resp := post(context.Background()); resp.StatusCode != http.StatusTooManyRequests || n.Load() != 4 {
		t.Errorf("without WithRetries: status %d after %d requests, want the 429 after 4", resp.StatusCode, n.Load())
	}
}

// TestGuestLimitTraceparentNoRedirect: --max-connections 1 holds a second
// request until the first's body is closed; a traced context gives a
// traceparent; a redirect is returned, not followed.
func TestGuestLimitTraceparentNoRedirect(t *testing.T) {
	var inFlight, most atomic.Int32
	var tp atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		tp.Store(r.Header.Get("traceparent"))
		cur := inFlight.Add(1)
		for {
			m := most.Load()
			if cur <= m || most.CompareAndSwap(m, cur) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		inFlight.Add(-1)
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	hc := fastClient(1).GuestClient()
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			resp, err := hc.Get(srv.URL)
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		})
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Errorf("%d requests at once with --max-connections 1", most.Load())
	}
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}, TraceFlags: trace.FlagsSampled})
	req, _ := http.NewRequestWithContext(trace.ContextWithSpanContext(context.Background(), sc), http.MethodGet, srv.URL, nil)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if got, _ := tp.Load().(string); !strings.HasPrefix(got, "00-01000000000000000000000000000000-0200000000000000-01") {
		t.Errorf("traceparent %q, want the case's span", got)
	}
	resp, err = hc.Get(srv.URL + "/redirect")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Errorf("redirect: status %d, want the 302 itself", resp.StatusCode)
	}
}

// TestGuestUnreachableStopsTheRun: a driver's requests to a closed port
// declare the endpoint unreachable after UnreachableAfter attempts (the
// run is told once), and later ones fail at once; a tool's requests
// (no WithRetries) do not count.
func TestGuestUnreachableStopsTheRun(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	var told atomic.Int32
	c := NewClient(Options{MaxRetries: -1, UnreachableAfter: 2, OnUnreachable: func(error) { told.Add(1) }})
	hc := c.GuestClient()
	get := func(ctx context.Context) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := hc.Do(req)
		if err == nil {
			_ = resp.Body.Close()
		}
		return err
	}
	for range 3 {
		_ = get(context.Background()) // tools: not counted
	}
	if told.Load() != 0 {
		t.Fatal("a tool's refused connections declared the endpoint unreachable")
	}
	ctx := WithRetries(context.Background(), &retryList{})
	_ = get(ctx)
	_ = get(ctx)
	if told.Load() != 1 {
		t.Fatalf("told %d times after two refused driver requests, want once", told.Load())
	}
	if err := get(ctx); err == nil || !strings.Contains(err.Error(), "cannot be reached") {
		t.Errorf("third driver request = %v, want the endpoint's unreachable error", err)
	}
}

// TestGuestRefusedCredentialsStopTheRun: a driver whose first requests
// all get 401 declares its endpoint unreachable, as the built-in
// providers' 401s do: the driver gets the first answers (the driver
// provider makes its failed turns E-EVL-014 errors), then the run stops.
// An endpoint that answered once is never declared so.
func TestGuestRefusedCredentialsStopTheRun(t *testing.T) {
	var status atomic.Int32
	status.Store(http.StatusUnauthorized)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(int(status.Load())) }))
	defer srv.Close()
	for _, tc := range []struct {
		name     string
		answered bool
	}{{"never answered", false}, {"answered once", true}} {
		t.Run(tc.name, func(t *testing.T) {
			var told atomic.Int32
			c := NewClient(Options{MaxRetries: -1, UnreachableAfter: 2, OnUnreachable: func(error) { told.Add(1) }})
			hc := c.GuestClient()
			ctx := WithRetries(context.Background(), &retryList{})
			get := func() (int, error) {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
				resp, err := hc.Do(req)
				if err != nil {
					return 0, err
				}
				_ = resp.Body.Close()
				return resp.StatusCode, nil
			}
			if tc.answered {
				status.Store(http.StatusOK)
				_, _ = get()
				status.Store(http.StatusUnauthorized)
			}
			if code, err := get(); code != http.StatusUnauthorized || err != nil {
				t.Fatalf("first 401: %d %v, want the answer", code, err)
			}
			_, err := get()
			if tc.answered {
				if err != nil || told.Load() != 0 {
					t.Errorf("an endpoint that answered: %v, told %d times; want the 401s", err, told.Load())
				}
				return
			}
			if told.Load() != 1 || err == nil || !strings.Contains(err.Error(), "refused the credentials") {
				t.Errorf("second 401: %v, told %d times; want the endpoint declared once", err, told.Load())
			}
		})
	}
}

// TestGuestExchangesAreReported: under WithRetries each request's outcome
// is reported once the retries ended: a 401's status, a 2xx's body as the
// guest read it (when it read it to the end), a closed port's error after
// the retries; a request without WithRetries (a tool's) is not reported.
func TestGuestExchangesAreReported(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/401" {
			http.Error(w, "bad key", http.StatusUnauthorized)
			return
		}
		_, _ = io.WriteString(w, `{"usage":{"input_tokens":3,"output_tokens":1}}`)
	}))
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	hc := NewClient(Options{MaxRetries: 1, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, UnreachableAfter: -1}).GuestClient()
	obs := &retryList{}
	send := func(ctx context.Context, url string) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := hc.Do(req); err == nil {
			_, _ = io.ReadAll(resp.Body)
			_ = resp.Body.Close()
		}
	}
	send(context.Background(), srv.URL+"/401") // a tool's
	ctx := WithRetries(context.Background(), obs)
	send(ctx, srv.URL+"/401")
	send(ctx, srv.URL+"/ok")
	send(ctx, closedURL)
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if len(obs.exchanges) != 3 {
		t.Fatalf("%d exchanges reported, want 3: %+v", len(obs.exchanges), obs.exchanges)
	}
	x := obs.exchanges
	if x[0].Status != http.StatusUnauthorized || x[0].Err != nil || x[0].Endpoint != srv.URL {
		t.Errorf("401: %+v", x[0])
	}
	if x[1].Status != http.StatusOK || string(x[1].Body) != `{"usage":{"input_tokens":3,"output_tokens":1}}` {
		t.Errorf("200: status %d body %q, want the body the guest read", x[1].Status, x[1].Body)
	}
	if x[2].Status != 0 || x[2].Err == nil || len(obs.got) != 1 {
		t.Errorf("closed port: %+v after %d retries, want the error after one retry", x[2], len(obs.got))
	}
}
