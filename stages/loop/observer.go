package loop

import (
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// observer writes what the provider reports during one turn's request
// (retries, replay divergences) to the trace, as murmur-eval's own event
// types, and counts its cache lookups there. It lives for one Complete
// call; the first write error is kept and ends the session like any trace
// write failure.
type observer struct {
	tr   *trace.Writer
	turn int
	err  error
}

func (o *observer) Retried(r inference.Retry) {
	ev := trace.InferenceRetry{
		Turn:    o.turn,
		Attempt: r.Attempt,
		Status:  r.Status,
		Reason:  r.Reason,
		WaitMS:  r.Wait.Milliseconds(),
		Error:   r.Err,
	}
	if r.RetryAfter != nil {
		ms := r.RetryAfter.Milliseconds()
		ev.RetryAfterMS = &ms
	}
	o.keep(o.tr.InferenceRetry(ev))
}

func (o *observer) Diverged(d inference.Divergence) {
	o.keep(o.tr.ReplayDivergence(trace.ReplayDivergence{Turn: o.turn, RecordedRequestSHA256: d.Recorded, RequestSHA256: d.Got}))
}

func (o *observer) Cached(hit bool) { o.tr.CacheLookup(hit) }

func (o *observer) keep(err error) {
	if o.err == nil {
		o.err = err
	}
}
