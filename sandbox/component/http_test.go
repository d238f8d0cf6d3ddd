package component

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// httpServer is a test server counting the requests it saw.
type httpServer struct {
	*httptest.Server
	hits atomic.Int64
	host string // host:port
}

func newHTTPServer(t *testing.T, tls bool, h http.HandlerFunc) *httpServer {
	s := &httpServer{}
	wrapped := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h(w, r)
	})
	s.Server = httptest.NewUnstartedServer(wrapped)
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused TLS handshakes are expected
	if tls {
		s.StartTLS()
	} else {
		s.Start()
	}
	t.Cleanup(s.Close)
	s.host = strings.TrimPrefix(strings.TrimPrefix(s.URL, "http://"), "https://")
	return s
}

func rules(t *testing.T, entries ...string) []capsule.AllowRule {
	var rs []capsule.AllowRule
	for _, e := range entries {
		r, err := capsule.ParseAllowEntry(e)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	return rs
}

func codeLetter(c int) string { return string(rune('A' + c)) }

// TestHTTPAllowList runs the http fixture's requests against the allow
// list: allowed requests reach the server, denied ones never do (murmur's
// §5.4 rules: host exact, scheme and port where the rule has them, no
// scheme meaning https).
func TestHTTPAllowList(t *testing.T) {
	rt := newRuntime(t)
	c := compileFixture(t, rt, "http", WorldTool)
	srv := newHTTPServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/redirect":
			w.Header().Set("Location", "http://elsewhere.example/")
			w.WriteHeader(http.StatusFound)
		case r.Method == http.MethodPost:
			b, _ := io.ReadAll(r.Body)
			_, _ = w.Write([]byte(r.Method + " " + string(b)))
		default:
			_, _ = w.Write([]byte("hello " + r.URL.RawQuery + " ua=" + r.UserAgent()))
		}
	})
	port := srv.host[strings.LastIndexByte(srv.host, ':')+1:]
	var denied []capsule.Target
	tests := []struct {
		name, input string
		allow       []string
		status      string
		data        string
		reached     bool
	}{
		{"allowed host:port", "g" + srv.host + "|/x?q=1", []string{srv.host}, "passed", "200hello q=1 ua=", true},
		{"allowed URL entry", "g" + srv.host + "|/", []string{"http://" + srv.host}, "passed", "200hello  ua=", true},
		{"redirect not followed", "g" + srv.host + "|/redirect", []string{srv.host}, "passed", "302", true},
		{"POST body", "p" + srv.host + "|/echo", []string{srv.host}, "passed", "200POST /echo", true},
		{"POST body after handle", "P" + srv.host + "|/late", []string{srv.host}, "passed", "200POST /late", true},
		{"no allow list", "g" + srv.host + "|/", nil, "failed", codeLetter(ecRequestDenied), false},
		{"other host", "g" + srv.host + "|/", []string{"localhost:" + port}, "failed", codeLetter(ecRequestDenied), false},
		{"other port", "g" + srv.host + "|/", []string{"127.0.0.1:1"}, "failed", codeLetter(ecRequestDenied), false},
		{"https rule, http request", "g" + srv.host + "|/", []string{"https://" + srv.host}, "failed", codeLetter(ecRequestDenied), false},
		{"no scheme is https", "G" + srv.host + "|/", []string{"http://" + srv.host}, "failed", codeLetter(ecRequestDenied), false},
		{"URL entry's default port", "g" + srv.host + "|/", []string{"http://127.0.0.1"}, "failed", codeLetter(ecRequestDenied), false},
		{"other scheme", "f" + srv.host + "|/", []string{srv.host}, "failed", codeLetter(ecProtocolError), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := srv.hits.Load()
			denied = nil
			env := Env{Network: rules(t, tt.allow...), OnHTTPDenied: func(tg capsule.Target) { denied = append(denied, tg) }}
			r, err := c.RunTool(context.Background(), env, ToolInput{Data: str(tt.input)})
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if r.Data != nil {
				got = *r.Data
			}
			if r.Status != tt.status || got != tt.data {
				t.Errorf("got %s %q, want %s %q", r.Status, got, tt.status, tt.data)
			}
			if reached := srv.hits.Load() > before; reached != tt.reached {
				t.Errorf("server reached: %v, want %v", reached, tt.reached)
			}
			if wantDenied := tt.data == codeLetter(ecRequestDenied); wantDenied != (len(denied) == 1) {
				t.Errorf("OnHTTPDenied calls %v, want one: %v", denied, wantDenied)
			}
		})
	}
}

// TestHTTPErrors: transport failures reach the guest as error-code cases,
// and bodies over the limit fail both ways.
func TestHTTPErrors(t *testing.T) {
	rt := newRuntime(t)
	c := compileFixture(t, rt, "http", WorldTool)
	big := newHTTPServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(make([]byte, 2<<20))
	})
	tlsSrv := newHTTPServer(t, true, func(w http.ResponseWriter, r *http.Request) {})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	_ = ln.Close()
	tests := []struct {
		name, input string
		env         Env
		data        string
	}{
		{"response body over the limit", "g" + big.host + "|/", Env{MaxHTTPBodyBytes: 1 << 20}, codeLetter(ecResponseBodySize)},
		{"request body over the limit", "p" + big.host + "|/0123456789", Env{MaxHTTPBodyBytes: 4}, "W"},
		{"request body over the limit after handle", "P" + big.host + "|/0123456789", Env{MaxHTTPBodyBytes: 4}, "W"},
		{"connection refused", "g" + closed + "|/", Env{}, codeLetter(ecConnRefused)},
		{"untrusted certificate", "s" + tlsSrv.host + "|/", Env{}, codeLetter(ecTLSCertificate)},
		{"https to a plain server", "G" + big.host + "|/", Env{}, codeLetter(ecTLSProtocol)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			host := tt.input[1:strings.IndexByte(tt.input, '|')]
			tt.env.Network = rules(t, host)
			r, err := c.RunTool(context.Background(), tt.env, ToolInput{Data: str(tt.input)})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != "failed" || r.Data == nil || *r.Data != tt.data {
				t.Errorf("got %s %v, want failed %q", r.Status, deref(r.Data), tt.data)
			}
		})
	}
	// The big body is read within the limit when the limit allows it.
	r, err := c.RunTool(context.Background(), Env{Network: rules(t, big.host), MaxHTTPBodyBytes: 4 << 20}, ToolInput{Data: str("g" + big.host + "|/")})
	if err != nil || r.Status != "passed" || !strings.HasPrefix(deref(r.Data), "200") {
		t.Fatalf("got %v %s %q", err, r.Status, deref(r.Data))
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestHTTPHangStopsAtDeadline: a server that never answers, or stops
// halfway through its body, holds the guest in host code (the future's
// pollable, the body's blocking-read) only until the tool's deadline.
func TestHTTPHangStopsAtDeadline(t *testing.T) {
	rt := newRuntime(t)
	c := compileFixture(t, rt, "http", WorldTool)
	release := make(chan struct{})
	srv := newHTTPServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/body" {
			_, _ = w.Write([]byte("partial"))
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	for _, path := range []string{"/headers", "/body"} {
		t.Run(path, func(t *testing.T) {
			start := time.Now()
			_, err := c.RunTool(context.Background(), Env{Network: rules(t, srv.host), Deadline: 300 * time.Millisecond},
				ToolInput{Data: str("g" + srv.host + "|" + path)})
			if !errcode.Is(err, errcode.RunCapsule) || !errors.Is(err, sandbox.ErrDeadline) {
				t.Fatalf("got %v, want E-RUN-001 deadline", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("stopped after %v", d)
			}
		})
	}
}

// TestDifferentialJcoHTTP runs the http fixture's requests through
// preview2-shim's wasi:http on Node (which has no allow list) and through
// this host with an allow list admitting the server: the same statuses,
// bodies and error-code cases.
func TestDifferentialJcoHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: transpiles and starts Node")
	}
	srv := newHTTPServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/redirect":
			w.Header().Set("Location", "http://elsewhere.example/")
			w.WriteHeader(http.StatusFound)
		case r.URL.Path == "/missing":
			http.NotFound(w, r)
		default:
			b, _ := io.ReadAll(r.Body)
			_, _ = w.Write([]byte(r.Method + " " + r.URL.RequestURI() + " " + string(b)))
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	_ = ln.Close()
	inputs := []*string{str("g" + srv.host + "|/a?b=c"), str("p" + srv.host + "|/posted"), str("P" + srv.host + "|/late"), str("g" + srv.host + "|/redirect"),
		str("g" + srv.host + "|/missing"), str("g" + closed + "|/")}
	differentialEnv(t, "http", t.TempDir(), inputs, Env{Network: rules(t, srv.host, closed)})
}
