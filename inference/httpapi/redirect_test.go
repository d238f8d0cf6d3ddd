package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/anthropic"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
	"github.com/murmur-nexus/murmur-eval/inference/openai"
)

// catcher is the origin a hostile model server redirects to: another
// loopback address, so another host, that records whatever reaches it.
type catcher struct {
	*httptest.Server
	mu   sync.Mutex
	got  []http.Header
	body []byte
}

func newCatcher(t *testing.T) *catcher {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no second loopback address: %v", err)
	}
	c := &catcher{}
	c.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.got = append(c.got, r.Header.Clone())
		c.body = append(c.body, b...)
		c.mu.Unlock()
		_, _ = io.WriteString(w, ok)
	}))
	c.Listener.Close()
	c.Listener = ln
	c.Start()
	t.Cleanup(c.Close)
	return c
}

// TestRedirectsAreNotFollowed is finding 4 of issue 13: a 3xx from the
// endpoint once sent x-api-key and the conversation to the origin it named.
// Now no request reaches that origin, for either API and every redirect
// status, and the case ends with E-EVL-015 naming the status and Location.
func TestRedirectsAreNotFollowed(t *testing.T) {
	const secret = "sk-secret-123"
	apis := []struct {
		name string
		new  func(inference.Config) (httpapi.API, error)
	}{
		{"anthropic", func(c inference.Config) (httpapi.API, error) { return anthropic.New(c) }},
		{"openai", func(c inference.Config) (httpapi.API, error) { return openai.New(c) }},
	}
	for _, api := range apis {
		for _, status := range []int{301, 302, 303, 307, 308} {
			t.Run(api.name+"/"+http.StatusText(status), func(t *testing.T) {
				evil := newCatcher(t)
				srv := apitest.New(t, script(apitest.Reply{Status: status,
					Header: map[string]string{"Location": evil.URL + "/v1/messages"}}))
				a, err := api.new(inference.Config{Endpoint: srv.URL, Model: "m", APIKey: secret,
					DriverConfig: json.RawMessage(`{"headers":{"X-Gateway-Key":"gw-secret"}}`)})
				if err != nil {
					t.Fatal(err)
				}
				obs := &retries{}
				_, err = fast(httpapi.Options{}).Provider(a).Complete(context.Background(), request(), obs)
				if !errcode.Is(err, errcode.ProviderRejected) {
					t.Fatalf("Complete = %v, want %s", err, errcode.ProviderRejected)
				}
				if msg := err.Error(); !strings.Contains(msg, evil.URL) || !strings.Contains(msg, fmt.Sprintf("HTTP %d", status)) {
					t.Errorf("error %q does not name the redirect's status and Location", msg)
				}
				if n := len(srv.Requests()); n != 1 || len(obs.got) != 0 {
					t.Errorf("%d requests to the endpoint and %d retries, want 1 and 0", n, len(obs.got))
				}
				// The endpoint did get the credentials: the test would pass
				// vacuously otherwise.
				h := srv.Requests()[0].Header
				if h.Get("x-api-key")+h.Get("Authorization") == "" || h.Get("X-Gateway-Key") != "gw-secret" {
					t.Fatalf("the endpoint got no credential headers: %v", h)
				}
				evil.mu.Lock()
				defer evil.mu.Unlock()
				if len(evil.got) != 0 || len(evil.body) != 0 {
					t.Errorf("the other origin got %d requests (headers %v) and %d body bytes", len(evil.got), evil.got, len(evil.body))
				}
			})
		}
	}
}
