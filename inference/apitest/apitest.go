// Package apitest runs scripted model APIs on 127.0.0.1 for tests: an
// httptest server that records every request, counts how many are in
// flight at once, and answers each with a Reply: a status and body shaped
// as Anthropic's or OpenAI's (see bodies.go), after a delay, or a
// connection reset instead of an answer.
package apitest

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Reply is a scripted answer.
type Reply struct {
	Status int               // default 200
	Header map[string]string // e.g. Retry-After
	Body   string
	Delay  time.Duration // wait before answering (ends early if the client goes away)
	Reset  bool          // close the connection with a TCP reset instead of answering
}

// Request is a request as the server received it.
type Request struct {
	Call   int // 0-based arrival order
	Path   string
	Header http.Header
	Body   []byte
}

// Server is a scripted API. Handle is called concurrently.
type Server struct {
	*httptest.Server
	handle func(Request) Reply

	mu       sync.Mutex
	requests []Request
	calls    int

	inflight, maxInflight atomic.Int64
}

// New starts a server answering with handle and stops it when the test
// ends.
func New(t testing.TB, handle func(Request) Reply) *Server {
	t.Helper()
	s := &Server{handle: handle}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	n := s.inflight.Add(1)
	defer s.inflight.Add(-1)
	for {
		m := s.maxInflight.Load()
		if n <= m || s.maxInflight.CompareAndSwap(m, n) {
			break
		}
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	req := Request{Call: s.calls, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	s.calls++
	s.requests = append(s.requests, req)
	s.mu.Unlock()

	rep := s.handle(req)
	if rep.Delay > 0 {
		select {
		case <-time.After(rep.Delay):
		case <-r.Context().Done():
			return
		}
	}
	if rep.Reset {
		reset(w)
		return
	}
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	if rep.Status == 0 {
		rep.Status = http.StatusOK
	}
	w.WriteHeader(rep.Status)
	_, _ = io.WriteString(w, rep.Body)
}

// reset hijacks the connection and closes it with SO_LINGER 0, so the
// client sees a connection reset, not a response.
func reset(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// Requests returns the requests received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// MaxInFlight is the most requests the server was handling at once.
func (s *Server) MaxInFlight() int { return int(s.maxInflight.Load()) }
