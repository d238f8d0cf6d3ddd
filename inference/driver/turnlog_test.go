package driver

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
)

// httpDriver is a driver that POSTs to url through the run's guest client
// and returns status error with "HTTP <status>: <body>" for an answer of
// 400 or more (as murmur's drivers do), the answer as canonical text
// without usage for a 2xx, and a failed request's text otherwise. denied
// stands for a request its allow list denied (no request is sent).
type httpDriver struct {
	hc     *http.Client
	url    string
	denied bool
	trap   bool // return a dispatch error instead of a result
}

func (d *httpDriver) Run(ctx context.Context, _ []byte) (inference.DriverResult, error) {
	fail := func(text string) (inference.DriverResult, error) {
		if d.trap {
			return inference.DriverResult{}, errors.New("wasm trap: unreachable")
		}
		return inference.DriverResult{Status: "error", Data: &text}, nil
	}
	if d.denied {
		res, err := fail("driver: failed to dispatch HTTP request: ErrorCode::HttpRequestDenied")
		res.Denied = []string{"http://127.0.0.1:9"}
		return res, err
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, d.url, strings.NewReader("{}"))
	resp, err := d.hc.Do(req)
	if err != nil {
		return fail("driver: failed to dispatch HTTP request: " + err.Error())
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode >= 400 {
		return fail(httpapi.StatusText(resp.StatusCode, body))
	}
	data := `{"content":[{"text":"hi","type":"text"}],"stop_reason":"end_turn"}`
	return inference.DriverResult{Status: "passed", Data: &data}, nil
}

func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "http://" + addr + "/v1/messages"
}

// TestFailedDriverTurnsWithHarnessCauses: a turn the driver failed is the
// harness's error when the host saw why (credentials refused: E-EVL-014;
// its allow list denied the request: E-EVL-081; no answer once the
// retries ended: E-EVL-016; the endpoint declared unreachable: E-EVL-018),
// whether the driver returned status error or failed to run; an answer
// the provider gave (a 400) leaves the driver's failed turn standing; a
// 2xx answer's usage is the turn's provider usage though the driver
// returned none.
func TestFailedDriverTurnsWithHarnessCauses(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/401":
			http.Error(w, `{"error":{"message":"invalid x-api-key"}}`, http.StatusUnauthorized)
		case "/403":
			http.Error(w, "forbidden", http.StatusForbidden)
		case "/400":
			http.Error(w, "bad request", http.StatusBadRequest)
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":12,\"cache_read_input_tokens\":5,\"output_tokens\":1}}}\n\n"+
				"event: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":4}}\n\n")
		}
	}))
	defer srv.Close()
	tests := []struct {
		name    string
		path    string // "" for a closed port
		denied  bool
		trap    bool
		after   int // UnreachableAfter
		code    string
		message string
		failed  bool
		usage   *inference.Usage
	}{
		{name: "401", path: "/401", after: -1, code: errcode.ProviderAuth, message: "HTTP 401"},
		{name: "403", path: "/403", after: -1, code: errcode.ProviderAuth, message: "HTTP 403"},
		{name: "401 then a trap", path: "/401", after: -1, trap: true, code: errcode.ProviderAuth, message: "HTTP 401"},
		{name: "401 declares the endpoint", path: "/401", after: 1, code: errcode.EndpointUnreachable, message: "refused the credentials"},
		{name: "denied by network.allow", denied: true, after: -1, code: errcode.MurmurEndpointDenied, message: "http://127.0.0.1:9"},
		{name: "no answer", after: -1, code: errcode.ProviderUnavailable, message: "gave no answer"},
		{name: "no answer, then a trap", after: -1, trap: true, code: errcode.ProviderUnavailable, message: "gave no answer"},
		{name: "400 is the model's", path: "/400", after: -1, failed: true},
		{name: "a trap alone", path: "/400", after: -1, trap: true, code: errcode.RunAgentLoop},
		{name: "usage from the answer", path: "/ok", after: -1, usage: &inference.Usage{InputTokens: 17, OutputTokens: 4, CachedInputTokens: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := httpapi.NewClient(httpapi.Options{MaxRetries: 1, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, UnreachableAfter: tt.after})
			url := srv.URL + tt.path
			if tt.path == "" {
				url = closedURL(t)
			}
			p := &provider{drv: &httpDriver{hc: c.GuestClient(), url: url, denied: tt.denied, trap: tt.trap}}
			resp, err := p.Complete(context.Background(), request("hi"), inference.NopObserver{})
			if errcode.Code(err) != tt.code {
				t.Fatalf("Complete = %v (code %q), want code %q", err, errcode.Code(err), tt.code)
			}
			if err != nil {
				t.Logf("%v", err)
				if !strings.Contains(err.Error(), tt.message) {
					t.Errorf("message %q lacks %q", err.Error(), tt.message)
				}
				return
			}
			if resp.DriverFailed != tt.failed {
				t.Errorf("DriverFailed = %v, want %v", resp.DriverFailed, tt.failed)
			}
			if (resp.Usage == nil) != (tt.usage == nil) || resp.Usage != nil && *resp.Usage != *tt.usage {
				t.Errorf("usage %+v, want %+v", resp.Usage, tt.usage)
			}
		})
	}
}
