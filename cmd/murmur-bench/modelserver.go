package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// modelServer is a local model API speaking OpenAI Chat Completions on
// 127.0.0.1. Every answer waits delay, as a model's latency would; a
// conversation takes turns answers: turns-1 calls of the ok tool, then a
// final "done".
type modelServer struct {
	delay    time.Duration
	turns    int
	srv      *http.Server
	url      string
	requests atomic.Int64
	inflight atomic.Int64
	peak     atomic.Int64
	// arrivals are when each request reached the handler, since the last
	// resetStats (waves.go reads them).
	mu       sync.Mutex
	arrivals []time.Time
}

func startModelServer(delay time.Duration, turns int) (*modelServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	m := &modelServer{delay: delay, turns: turns, url: "http://" + ln.Addr().String()}
	m.srv = &http.Server{Handler: http.HandlerFunc(m.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = m.srv.Serve(ln) }()
	return m, nil
}

func (m *modelServer) close() { _ = m.srv.Close() }

// resetStats clears the counters and the arrivals between runs.
func (m *modelServer) resetStats() {
	m.requests.Store(0)
	m.peak.Store(0)
	m.mu.Lock()
	m.arrivals = m.arrivals[:0]
	m.mu.Unlock()
}

// takeArrivals returns a copy of the arrivals since resetStats.
func (m *modelServer) takeArrivals() []time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]time.Time(nil), m.arrivals...)
}

func (m *modelServer) serve(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	m.mu.Lock()
	m.arrivals = append(m.arrivals, now)
	m.mu.Unlock()
	n := m.inflight.Add(1)
	defer m.inflight.Add(-1)
	for p := m.peak.Load(); n > p && !m.peak.CompareAndSwap(p, n); p = m.peak.Load() {
	}
	m.requests.Add(1)
	var req struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"type":"invalid_request_error","message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	done := 0
	for _, msg := range req.Messages {
		if msg.Role == "tool" {
			done++
		}
	}
	t := time.NewTimer(m.delay)
	select {
	case <-t.C:
	case <-r.Context().Done():
		t.Stop()
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if done < m.turns-1 {
		fmt.Fprintf(w, `{"id":"chatcmpl-%d","object":"chat.completion","created":1741570283,"model":"bench-model","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_%d","type":"function","function":{"name":"ok","arguments":"{\"q\":\"x\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":100,"completion_tokens":10,"total_tokens":110}}`, done, done)
		return
	}
	fmt.Fprint(w, `{"id":"chatcmpl-end","object":"chat.completion","created":1741570283,"model":"bench-model","choices":[{"index":0,"message":{"role":"assistant","content":"done"},"finish_reason":"stop"}],"usage":{"prompt_tokens":120,"completion_tokens":5,"total_tokens":125}}`)
}
