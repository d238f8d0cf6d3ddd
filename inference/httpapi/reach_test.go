package httpapi_test

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
)

// closedPort returns a loopback URL nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/v1/messages"
}

// TestUnreachableEndpointIsDeclaredOnce: a refused connection, a host that
// does not resolve, a plain-HTTP server spoken to over TLS and refused
// credentials each declare the endpoint unreachable after its first three
// failed requests, once, with a hint for that cause; every later request
// fails at once without a retry.
func TestUnreachableEndpointIsDeclaredOnce(t *testing.T) {
	auth := apitest.New(t, script(apitest.Reply{Status: 401, Body: "bad key"}))
	plain := apitest.New(t, script(apitest.Reply{Body: ok}))
	for _, tc := range []struct {
		name, url, cause, hint string
	}{
		{"refused", closedPort(t), "connection refused", "start the model server"},
		{"dns", "http://no-such-host.invalid/v1", "does not resolve", "host name"},
		{"tls to plain http", strings.Replace(plain.URL, "http://", "https://", 1), "does not speak TLS", "http://"},
		{"auth", auth.URL, "refused the credentials", "api_key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var notified []error
			c := fast(httpapi.Options{OnUnreachable: func(err error) { mu.Lock(); notified = append(notified, err); mu.Unlock() }})
			p := c.Provider(cannedAPI{url: tc.url})
			var last error
			for range 5 {
				_, last = p.Complete(context.Background(), request(), &retries{})
			}
			if !errcode.Is(last, errcode.EndpointUnreachable) {
				t.Fatalf("error = %v (%s), want %s", last, errcode.Code(last), errcode.EndpointUnreachable)
			}
			e := last.(*errcode.Error)
			if !strings.Contains(e.Msg, tc.url) || !strings.Contains(e.Msg, tc.cause) || !strings.Contains(e.Hint, tc.hint) {
				t.Errorf("message %q, hint %q: want the endpoint, %q and a hint with %q", e.Msg, e.Hint, tc.cause, tc.hint)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(notified) != 1 {
				t.Errorf("OnUnreachable called %d times, want once", len(notified))
			}
		})
	}
}

// TestFlakyEndpointKeepsItsRetries: an endpoint that answered once is never
// declared unreachable, however many connections fail afterwards.
func TestFlakyEndpointKeepsItsRetries(t *testing.T) {
	srv := apitest.New(t, script(apitest.Reply{Body: ok}))
	var declared bool
	c := fast(httpapi.Options{MaxRetries: 1, OnUnreachable: func(error) { declared = true }})
	if _, err := c.Provider(cannedAPI{url: srv.URL}).Complete(context.Background(), request(), &retries{}); err != nil {
		t.Fatal(err)
	}
	srv.Close() // now every connection is refused
	for range 5 {
		_, err := c.Provider(cannedAPI{url: srv.URL}).Complete(context.Background(), request(), &retries{})
		if !errcode.Is(err, errcode.ProviderUnavailable) {
			t.Fatalf("error = %v (%s), want %s after the retries", err, errcode.Code(err), errcode.ProviderUnavailable)
		}
	}
	if declared {
		t.Error("an endpoint that answered was declared unreachable")
	}
}
