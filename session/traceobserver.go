package session

import (
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// TraceObserver is an inference.Observer that writes what a provider
// reports besides an answer (retries, replay divergences) to a session's
// trace, as murmur-eval's own event types at Turn, and counts its cache
// lookups there: the loop's for a model turn, Report's for the judge's
// requests (a retry's error then starts with Prefix, "judge: "). It keeps
// the first write error in Err, for the loop, which ends the session on
// it like any trace write failure.
type TraceObserver struct {
	Trace  *trace.Writer
	Turn   int
	Prefix string
	Err    error
}

// Retried writes an inference_retry event.
func (o *TraceObserver) Retried(r inference.Retry) {
	ev := trace.InferenceRetry{
		Turn:    o.Turn,
		Attempt: r.Attempt,
		Status:  r.Status,
		Reason:  r.Reason,
		WaitMS:  r.Wait.Milliseconds(),
		Error:   o.Prefix + r.Err,
	}
	if r.RetryAfter != nil {
		ms := r.RetryAfter.Milliseconds()
		ev.RetryAfterMS = &ms
	}
	o.keep(o.Trace.InferenceRetry(ev))
}

// Diverged writes a replay_divergence event.
func (o *TraceObserver) Diverged(d inference.Divergence) {
	o.keep(o.Trace.ReplayDivergence(trace.ReplayDivergence{Turn: o.Turn, RecordedRequestSHA256: d.Recorded, RequestSHA256: d.Got}))
}

// Cached counts a cache lookup in the trace's counts.
func (o *TraceObserver) Cached(hit bool) { o.Trace.CacheLookup(hit) }

func (o *TraceObserver) keep(err error) {
	if o.Err == nil {
		o.Err = err
	}
}
