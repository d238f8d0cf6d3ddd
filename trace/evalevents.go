package trace

// Event types murmur-eval adds. murmur's trace readers ignore event types
// they do not know, so these do not disturb `mur trace`.
const (
	TypeInferenceRetry   = "inference_retry"
	TypeReplayDivergence = "replay_divergence"
	TypeNetworkDenied    = "network_denied"
)

// NetworkDenied is written for each wasi:http request a guest (a tool, the
// driver) made outside its network allow list: the guest got
// HTTP-request-denied and went on; and for each connection or DNS lookup
// of a shell or native tool that the egress proxy refused. It follows the
// call it happened in (before that call's tool_call or inference event).
type NetworkDenied struct {
	Turn     int    `json:"turn"`
	Artifact string `json:"artifact"`
	// Target is the request's scheme://host:port, as an allow entry; for
	// the proxy, the address:port connected to or the name looked up.
	Target string `json:"target"`
	// Channel is "tcp" or "dns" for the egress proxy's refusals, absent
	// for a guest's wasi:http request.
	Channel string `json:"channel,omitempty"`
	// Reason says why the proxy refused it.
	Reason string `json:"reason,omitempty"`
}

// NetworkDenied writes a network_denied event.
func (w *Writer) NetworkDenied(e NetworkDenied) error {
	return w.write(TypeNetworkDenied, &e.Turn, e.Artifact, e)
}

// InferenceRetry is written for each model request attempt that failed and
// is retried, before the turn's inference event.
type InferenceRetry struct {
	Turn    int `json:"turn"`
	Attempt int `json:"attempt"` // 1-based number of the attempt that failed
	// Status is the HTTP status, 0 when no response arrived.
	Status int `json:"status"`
	// Reason is rate_limited (429), server_error (408, 5xx) or connection.
	Reason string `json:"reason"`
	WaitMS int64  `json:"wait_ms"` // the pause before the next attempt
	// RetryAfterMS is what the server asked for (Retry-After), null when
	// it did not ask.
	RetryAfterMS *int64 `json:"retry_after_ms"`
	Error        string `json:"error"`
}

// ReplayDivergence is written when a replayed turn's request differs from
// the request recorded with it, before the turn's inference event.
type ReplayDivergence struct {
	Turn                  int    `json:"turn"`
	RecordedRequestSHA256 string `json:"recorded_request_sha256"`
	RequestSHA256         string `json:"request_sha256"`
}

// EvalCounts are murmur-eval's own per-session counts, which murmur's
// session_end does not carry; the case's row reports them.
type EvalCounts struct {
	Retries           int  // inference_retry events
	Divergences       int  // replay_divergence events
	FirstDivergedTurn *int // the turn of the first replay_divergence, nil when none
	// ProviderInputTokens and ProviderOutputTokens sum the provider's
	// reported usage over the inference events that carry it; nil when
	// none does.
	ProviderInputTokens, ProviderOutputTokens *int64
	// CacheHits and CacheMisses count the session's requests (model turns
	// and judge requests) the model-turn cache (--cache) answered, and
	// those it sent on to the model; both 0 without --cache.
	CacheHits, CacheMisses int
}

// InferenceRetry writes an inference_retry event and counts it.
func (w *Writer) InferenceRetry(e InferenceRetry) error {
	w.counts.Retries++
	return w.write(TypeInferenceRetry, &e.Turn, "", e)
}

// ReplayDivergence writes a replay_divergence event and counts it.
func (w *Writer) ReplayDivergence(e ReplayDivergence) error {
	w.counts.Divergences++
	if w.counts.FirstDivergedTurn == nil {
		t := e.Turn
		w.counts.FirstDivergedTurn = &t
	}
	return w.write(TypeReplayDivergence, &e.Turn, "", e)
}

// CacheLookup counts a request looked up in the model-turn cache. It
// writes no event: a cached turn's inference event is the one the model's
// answer gave, so a cached run's trace reads as the run that filled it.
func (w *Writer) CacheLookup(hit bool) {
	if hit {
		w.counts.CacheHits++
	} else {
		w.counts.CacheMisses++
	}
}

// EvalCounts returns murmur-eval's own counts so far.
func (w *Writer) EvalCounts() EvalCounts { return w.counts }
