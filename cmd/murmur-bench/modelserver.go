package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// modelServer is a local model API on 127.0.0.1. Every answer waits
// delay, as a model's latency would; a conversation takes turns answers:
// turns-1 calls of the ok tool, then a final "done". It speaks OpenAI Chat
// Completions (POST <endpoint>/chat/completions, as the built-in provider
// and murmur's murmur-driver-openai send it) and, to a POST of the
// endpoint's root, murmur's canonical driver response: the relay fixture
// (inference/driver/testdata/relay.wat) POSTs its input, murmur's
// canonical driver request, there and hands the body back as its answer.
type modelServer struct {
	delay    time.Duration
	turns    int
	srv      *http.Server
	url      string
	requests atomic.Int64
	// canonical counts the requests answered in murmur's canonical form
	// (the relay fixture's), builtin those the built-in provider sent (its
	// User-Agent is murmur-eval; a guest's request carries the guest's
	// own): checkPath tells from them that a run took the path it was
	// meant to.
	canonical atomic.Int64
	builtin   atomic.Int64
	inflight  atomic.Int64
	peak      atomic.Int64
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
	m.canonical.Store(0)
	m.builtin.Store(0)
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
	canonical := canonicalRequest(r)
	if canonical {
		m.canonical.Add(1)
	}
	if r.Header.Get("User-Agent") == "murmur-eval" {
		m.builtin.Add(1)
	}
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
	_, _ = io.WriteString(w, answer(canonical, done < m.turns-1, done))
}

// checkPath says whether the requests since resetStats came the way path
// sends them: on the built-in path none in the canonical form, on the
// driver path none from the built-in provider (murmur-eval answers a turn
// with its built-in provider only when asked to, but a benchmark that
// measured the wrong path would say nothing).
func (m *modelServer) checkPath(path string) error {
	switch {
	case path == pathBuiltin && m.canonical.Load() > 0:
		return fmt.Errorf("built-in path: %d requests in murmur's canonical form (a driver component sent them)", m.canonical.Load())
	case path == pathDriver && m.builtin.Load() > 0:
		return fmt.Errorf("driver path: %d requests from the built-in provider (User-Agent murmur-eval)", m.builtin.Load())
	}
	return nil
}

// canonicalRequest says whether r is the relay fixture's: it POSTs to the
// endpoint's root ("/"), where murmur's driver and the built-in provider
// append /chat/completions. Both shapes count tool results the same way (a
// message of role "tool" each), so the path is all that tells them apart.
func canonicalRequest(r *http.Request) bool { return r.URL.Path == "/" }

// answer is the model's answer after done tool results: a call of the ok
// tool (call_<done>) when call is set, the final "done" otherwise, in
// murmur's canonical form or as an OpenAI chat completion. The usage is
// the same in both forms, and the same as the replay suites' recordings.
func answer(canonical, call bool, done int) string {
	switch {
	case canonical && call:
		return fmt.Sprintf(`{"content":[{"id":"call_%d","input":{"q":"x"},"name":"ok","type":"tool_call"}],"stop_reason":"tool_call","usage":{"input_tokens":100,"output_tokens":10}}`, done)
	case canonical:
		return `{"content":[{"text":"done","type":"text"}],"stop_reason":"end_turn","usage":{"input_tokens":120,"output_tokens":5}}`
	case call:
		return fmt.Sprintf(`{"id":"chatcmpl-%d","object":"chat.completion","created":1741570283,"model":"bench-model","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_%d","type":"function","function":{"name":"ok","arguments":"{\"q\":\"x\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":100,"completion_tokens":10,"total_tokens":110}}`, done, done)
	default:
		return `{"id":"chatcmpl-end","object":"chat.completion","created":1741570283,"model":"bench-model","choices":[{"index":0,"message":{"role":"assistant","content":"done"},"finish_reason":"stop"}],"usage":{"prompt_tokens":120,"completion_tokens":5,"total_tokens":125}}`
	}
}
