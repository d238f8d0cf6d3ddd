package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"
	"unicode/utf8"

	oteltrace "go.opentelemetry.io/otel/trace"
	"golang.org/x/sync/errgroup"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
)

// cannedAPI sends the canonical request as is and reads canonical
// responses: the exchange without a wire format.
type cannedAPI struct{ url string }

func (a cannedAPI) Name() string                                  { return "test" }
func (a cannedAPI) URL() string                                   { return a.url }
func (a cannedAPI) Header(h http.Header)                          { h.Set("X-Test", "1") }
func (a cannedAPI) Encode(req *inference.Request) ([]byte, error) { return json.Marshal(req) }
func (a cannedAPI) Decode(body []byte) (*inference.Response, error) {
	return inference.ParseResponse(body)
}
func (a cannedAPI) Failure(status int, body []byte) httpapi.Failure {
	return httpapi.Failure{Message: string(body), Final: string(body) == "quota"}
}

// retries records what the provider reported.
type retries struct{ got []inference.Retry }

func (r *retries) Cached(bool)                   {}
func (r *retries) Retried(x inference.Retry)     { r.got = append(r.got, x) }
func (r *retries) Diverged(inference.Divergence) {}

const ok = `{"stop_reason":"end_turn","content":[{"type":"text","text":"fine"}]}`

// fast retries quickly so tests stay short.
func fast(o httpapi.Options) *httpapi.Client {
	o.BaseDelay, o.MaxDelay = 5*time.Millisecond, 20*time.Millisecond
	return httpapi.NewClient(o)
}

func request() *inference.Request {
	return &inference.Request{MaxTokens: 10, Model: "m", Params: json.RawMessage("{}"),
		Messages: []inference.Message{inference.UserMessage("hi")}}
}

// script answers the n-th call with replies[n], the last one after that.
func script(replies ...apitest.Reply) func(apitest.Request) apitest.Reply {
	return func(r apitest.Request) apitest.Reply { return replies[min(r.Call, len(replies)-1)] }
}

func TestRetriesEachKindThenSucceeds(t *testing.T) {
	srv := apitest.New(t, script(
		apitest.Reply{Status: 500, Body: "boom"},
		apitest.Reply{Reset: true},
		apitest.Reply{Status: 429, Body: "slow down", Header: map[string]string{"retry-after-ms": "40"}},
		apitest.Reply{Status: 529, Body: "overloaded", Header: map[string]string{"Retry-After": "0"}},
		apitest.Reply{Body: ok},
	))
	obs := &retries{}
	p := fast(httpapi.Options{}).Provider(cannedAPI{srv.URL})
	resp, err := p.Complete(context.Background(), request(), obs)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if resp.Text() != "fine" || len(srv.Requests()) != 5 {
		t.Fatalf("got %q after %d requests, want fine after 5", resp.Text(), len(srv.Requests()))
	}
	want := []struct {
		status int
		reason string
	}{{500, inference.RetryServer}, {0, inference.RetryConnection}, {429, inference.RetryRateLimited}, {529, inference.RetryServer}}
	if len(obs.got) != len(want) {
		t.Fatalf("%d retries reported, want %d: %+v", len(obs.got), len(want), obs.got)
	}
	for i, w := range want {
		g := obs.got[i]
		if g.Attempt != i+1 || g.Status != w.status || g.Reason != w.reason || g.Err == "" {
			t.Errorf("retry %d = %+v, want attempt %d status %d reason %s", i, g, i+1, w.status, w.reason)
		}
	}
	if ra := obs.got[2].RetryAfter; ra == nil || *ra != 40*time.Millisecond || obs.got[2].Wait < 40*time.Millisecond {
		t.Errorf("429 retry: RetryAfter %v, wait %s; want 40ms honoured", ra, obs.got[2].Wait)
	}
	if obs.got[0].RetryAfter != nil {
		t.Errorf("500 without Retry-After reported RetryAfter %s", *obs.got[0].RetryAfter)
	}
	if h := srv.Requests()[0].Header; h.Get("X-Test") != "1" || h.Get("User-Agent") != "murmur-eval" || h.Get("Traceparent") != "" {
		t.Errorf("headers = %v", h)
	}
}

// TestHTTPFailuresEndTheSessionFailed: an answer of status 400 or more
// that is not retried (or whose retries stop) ends the session failed
// with the text murmur's driver gives it, "HTTP <status>: <body>" inside
// the canonical error response, not a harness error; a 401 or 403 (the
// credentials refused, E-EVL-014), a redirect and an undecodable 2xx body
// are harness errors.
func TestHTTPFailuresEndTheSessionFailed(t *testing.T) {
	tests := []struct {
		name  string
		reply apitest.Reply
		text  string // murmur's driver's message; "" when code is set
		code  string
	}{
		{"unauthorized fails fast", apitest.Reply{Status: 401, Body: "invalid x-api-key"}, "", errcode.ProviderAuth},
		{"forbidden fails fast", apitest.Reply{Status: 403, Body: "no"}, "", errcode.ProviderAuth},
		{"bad request", apitest.Reply{Status: 400, Body: `{"error":{"message":"bad <model>"}}`}, `HTTP 400: {"error":{"message":"bad <model>"}}`, ""},
		{"not found", apitest.Reply{Status: 404, Body: "model"}, "HTTP 404: model", ""},
		{"not implemented", apitest.Reply{Status: 501, Body: "no"}, "HTTP 501: no", ""},
		{"final 429", apitest.Reply{Status: 429, Body: "quota"}, "HTTP 429: quota", ""},
		{"empty body", apitest.Reply{Status: 418}, "HTTP 418: ", ""},
		{"retry-after too long", apitest.Reply{Status: 429, Body: "later", Header: map[string]string{"Retry-After": "3600"}}, "HTTP 429: later", ""},
		{"retry-after of a day", apitest.Reply{Status: 503, Header: map[string]string{"Retry-After": "86400"}}, "HTTP 503: ", ""},
		{"retry-after past any duration", apitest.Reply{Status: 429, Header: map[string]string{"Retry-After": "1e300"}}, "HTTP 429: ", ""},
		{"retry-after-ms past any duration", apitest.Reply{Status: 429, Header: map[string]string{"retry-after-ms": "99999999999999999999"}}, "HTTP 429: ", ""},
		{"redirect", apitest.Reply{Status: 307, Header: map[string]string{"Location": "http://127.0.0.2:1/"}}, "", errcode.ProviderRejected},
		{"undecodable body", apitest.Reply{Body: "<html>"}, "", errcode.ModelResponse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := apitest.New(t, script(tt.reply))
			obs := &retries{}
			resp, err := fast(httpapi.Options{}).Provider(cannedAPI{srv.URL}).Complete(context.Background(), request(), obs)
			if tt.code != "" {
				if !errcode.Is(err, tt.code) {
					t.Fatalf("Complete = %v, want code %s", err, tt.code)
				}
			} else {
				assertFailed(t, resp, err, tt.text)
			}
			if n := len(srv.Requests()); n != 1 || len(obs.got) != 0 {
				t.Errorf("%d requests, %d retries; want 1 and 0", n, len(obs.got))
			}
		})
	}
}

// assertFailed checks a turn murmur's driver would have ended with status
// error and message text.
func assertFailed(t *testing.T, resp *inference.Response, err error, text string) {
	t.Helper()
	if err != nil {
		t.Fatalf("Complete = %v, want the session failed with %q", err, text)
	}
	want := httpapi.ErrorData(text)
	if !resp.DriverFailed || resp.StopReason != inference.StopError || resp.Error != want {
		t.Fatalf("Complete = failed %v stop %q error %q; want failed, error %q", resp.DriverFailed, resp.StopReason, resp.Error, want)
	}
	var line struct {
		Error  string `json:"error"`
		Failed bool   `json:"murmur_eval_driver_failed"`
	}
	if json.Unmarshal(resp.Raw, &line) != nil || !line.Failed || line.Error != want {
		t.Errorf("recording line %s does not keep the failed ending", resp.Raw)
	}
}

func TestErrorDataIsWrittenAsMurmursDriverWritesIt(t *testing.T) {
	for _, tt := range []struct{ msg, want string }{
		{"HTTP 500: <b>&</b>", `{"error":"HTTP 500: <b>&</b>","stop_reason":"error"}`},
		{"a\u2028b\u2029\n\"", "{\"error\":\"a\u2028b\u2029\\n\\\"\",\"stop_reason\":\"error\"}"},
		{`back\u2028slash`, `{"error":"back\\u2028slash","stop_reason":"error"}`},
	} {
		if got := httpapi.ErrorData(tt.msg); got != tt.want {
			t.Errorf("ErrorData(%q) = %s, want %s", tt.msg, got, tt.want)
		}
	}
	if got := httpapi.StatusText(502, []byte("bad\xffgate")); got != "HTTP 502: bad\uFFFDgate" {
		t.Errorf("StatusText = %q", got)
	}
}

func TestGivesUpAfterMaxRetries(t *testing.T) {
	srv := apitest.New(t, script(apitest.Reply{Status: 503, Body: "down"}))
	obs := &retries{}
	resp, err := fast(httpapi.Options{MaxRetries: 2}).Provider(cannedAPI{srv.URL}).Complete(context.Background(), request(), obs)
	assertFailed(t, resp, err, "HTTP 503: down")
	if len(srv.Requests()) != 3 || len(obs.got) != 2 {
		t.Errorf("%d requests, %d retries; want 3, 2", len(srv.Requests()), len(obs.got))
	}
	srv2 := apitest.New(t, script(apitest.Reply{Status: 503}))
	resp, err = fast(httpapi.Options{MaxRetries: -1}).Provider(cannedAPI{srv2.URL}).Complete(context.Background(), request(), &retries{})
	assertFailed(t, resp, err, "HTTP 503: ")
	if len(srv2.Requests()) != 1 {
		t.Errorf("MaxRetries -1: %d requests, want one attempt", len(srv2.Requests()))
	}
	// No answer at all is still the harness's error.
	_, err = fast(httpapi.Options{MaxRetries: 1, UnreachableAfter: -1}).Provider(cannedAPI{closedPort(t)}).Complete(context.Background(), request(), &retries{})
	if !errcode.Is(err, errcode.ProviderUnavailable) {
		t.Errorf("connection refused: %v, want %s", err, errcode.ProviderUnavailable)
	}
}

// TestRetryAfterPastTheDeadlineGivesUpAtOnce: a Retry-After longer than
// what is left of the case's budget is never waited for, however large
// (issue 13: a huge one was retried until the deadline), even when
// MaxRetryAfter would allow it: the last answer ends the session.
func TestRetryAfterPastTheDeadlineGivesUpAtOnce(t *testing.T) {
	for _, tt := range []struct {
		retryAfter    string
		maxRetryAfter time.Duration
	}{
		{"30", 0},
		{"86400", 1<<63 - 1},
		{"1e300", 1<<63 - 1},
		{"Fri, 01 Mar 2999 12:00:00 GMT", 1<<63 - 1},
	} {
		srv := apitest.New(t, script(apitest.Reply{Status: 429, Body: "slow", Header: map[string]string{"Retry-After": tt.retryAfter}}))
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		start := time.Now()
		resp, err := fast(httpapi.Options{MaxRetryAfter: tt.maxRetryAfter}).Provider(cannedAPI{srv.URL}).Complete(ctx, request(), &retries{})
		cancel()
		assertFailed(t, resp, err, "HTTP 429: slow")
		if time.Since(start) > time.Second || len(srv.Requests()) != 1 {
			t.Errorf("Retry-After %s: ended after %s and %d requests, want at once after 1", tt.retryAfter, time.Since(start), len(srv.Requests()))
		}
	}
}

func TestSlowResponseEndsWithTheCase(t *testing.T) {
	srv := apitest.New(t, script(apitest.Reply{Body: ok, Delay: 10 * time.Second}))
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := fast(httpapi.Options{}).Provider(cannedAPI{srv.URL}).Complete(ctx, request(), &retries{})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("Complete = %v after %s, want the context's deadline", err, time.Since(start))
	}
	// Cancelled while waiting to retry.
	srv2 := apitest.New(t, script(apitest.Reply{Status: 500}))
	ctx2, cancel2 := context.WithCancel(context.Background())
	obs := &cancelOnRetry{cancel: cancel2}
	_, err = httpapi.NewClient(httpapi.Options{BaseDelay: time.Minute}).Provider(cannedAPI{srv2.URL}).Complete(ctx2, request(), obs)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled during backoff: %v, want context.Canceled", err)
	}
}

type cancelOnRetry struct{ cancel func() }

func (c *cancelOnRetry) Cached(bool)                   {}
func (c *cancelOnRetry) Retried(inference.Retry)       { c.cancel() }
func (c *cancelOnRetry) Diverged(inference.Divergence) {}

func TestTraceparentGoesWithTracedCases(t *testing.T) {
	srv := apitest.New(t, script(apitest.Reply{Body: ok}))
	tid, _ := oteltrace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := oteltrace.SpanIDFromHex("00f067aa0ba902b7")
	sc := oteltrace.NewSpanContext(oteltrace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: oteltrace.FlagsSampled})
	ctx := oteltrace.ContextWithSpanContext(context.Background(), sc)
	if _, err := fast(httpapi.Options{}).Provider(cannedAPI{srv.URL}).Complete(ctx, request(), &retries{}); err != nil {
		t.Fatal(err)
	}
	if got, want := srv.Requests()[0].Header.Get("traceparent"), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"; got != want {
		t.Errorf("traceparent = %q, want %q", got, want)
	}
}

// TestConnectionLimitHolds is the hammer test of issue 5: 200 cases from 50
// concurrent callers with MaxConnections 8, each case two requests, against
// a server that counts requests in flight.
func TestConnectionLimitHolds(t *testing.T) {
	srv := apitest.New(t, func(r apitest.Request) apitest.Reply {
		if r.Call%7 == 3 { // some 503s, so retries contend for slots too
			return apitest.Reply{Status: 503, Delay: time.Millisecond}
		}
		return apitest.Reply{Body: ok, Delay: 3 * time.Millisecond}
	})
	client := fast(httpapi.Options{MaxConnections: 8})
	defer client.CloseIdleConnections()
	var g errgroup.Group
	g.SetLimit(50)
	for range 200 {
		g.Go(func() error {
			p := client.Provider(cannedAPI{srv.URL})
			for range 2 {
				if _, err := p.Complete(context.Background(), request(), &retries{}); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatalf("a case failed: %v", err)
	}
	if m := srv.MaxInFlight(); m > 8 || m < 2 {
		t.Errorf("at most %d requests in flight, want 2..8", m)
	}
	t.Logf("%d requests, at most %d in flight", len(srv.Requests()), srv.MaxInFlight())
}

// FuzzUTF8Error: bodies are untrusted; the reason is given exactly when
// the body is not UTF-8, and names an index inside it.
func FuzzUTF8Error(f *testing.F) {
	f.Add([]byte("ok"))
	f.Add([]byte("bad \xe2\x82"))
	f.Add([]byte("\xf0\x90\x80A"))
	f.Fuzz(func(t *testing.T, b []byte) {
		msg := httpapi.UTF8Error(b)
		if (msg == "") != utf8.Valid(b) {
			t.Fatalf("UTF8Error(%q) = %q", b, msg)
		}
		var n, i int
		if msg != "" {
			if _, err := fmt.Sscanf(msg, "invalid utf-8 sequence of %d bytes from index %d", &n, &i); err != nil {
				if _, err := fmt.Sscanf(msg, "incomplete utf-8 byte sequence from index %d", &i); err != nil {
					t.Fatalf("UTF8Error(%q) = %q", b, msg)
				}
			}
			if i < 0 || i >= len(b) || n < 0 || n > 3 || !utf8.Valid(b[:i]) {
				t.Fatalf("UTF8Error(%q) = %q: index or length out of place", b, msg)
			}
		}
	})
}
