package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"go.opentelemetry.io/otel/propagation"

	"github.com/murmur-nexus/murmur-eval/inference"
)

// retriesKey marks a context whose guest requests may be retried.
type retriesKey struct{}

// WithRetries returns ctx under which GuestClient's requests that fail
// with 408, 429, a retryable 5xx or no response are retried with the
// Client's backoff, honouring Retry-After, each retry and each request's
// outcome reported to obs (possibly from another goroutine). The driver's
// turns run under it; other guests' requests are sent once (RATIONALE.md,
// "Why does only the driver's wasi:http get retries?").
func WithRetries(ctx context.Context, obs GuestObserver) context.Context {
	return context.WithValue(ctx, retriesKey{}, obs)
}

// GuestClient returns the http.Client for every guest's wasi:http
// requests in the run (sandbox/component's Env.HTTP): the Client's
// transport and connection pool, its --max-connections bound per endpoint
// (shared with the built-in providers), a W3C traceparent from the
// request's context when the case is traced and the guest set none,
// retries under WithRetries (where an endpoint that cannot be reached
// also stops the run, as the built-in providers' does: guestreach.go),
// and no redirect followed (wasi:http returns the 3xx to the guest).
func (c *Client) GuestClient() *http.Client {
	return &http.Client{Transport: &guestTransport{c: c}, CheckRedirect: noRedirects}
}

type guestTransport struct{ c *Client }

// RoundTrip sends req, retrying under WithRetries. A response is returned
// holding its endpoint slot until its body is closed.
func (g *guestTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	req = req.Clone(ctx) // RoundTrip must not change the caller's request
	req.Body = g.firstBody(req)
	if req.Header.Get("traceparent") == "" {
		propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(req.Header))
	}
	obs, retries := ctx.Value(retriesKey{}).(GuestObserver)
	o := g.c.opts
	ep := guestEndpoint(endpointKey(req.URL.String()))
	for attempt := 1; ; attempt++ {
		if retries {
			if err := g.c.reach.declared(ep.URL()); err != nil {
				exchanged(obs, ep.URL(), nil, err, nil)
				return nil, err
			}
		}
		sl, err := g.c.limits.acquire(ctx, req.URL.String())
		if err != nil {
			return nil, err
		}
		release := sl.release
		resp, err := g.c.hc.Transport.RoundTrip(req)
		if err == nil {
			sl.answered(resp)
		}
		if retries && ctx.Err() == nil {
			if rerr := g.reached(ep, resp, err); rerr != nil {
				discard(resp)
				release()
				exchanged(obs, ep.URL(), nil, rerr, nil)
				return nil, rerr
			}
		}
		r := classify(resp, err, o.Now())
		last := !retries || r.reason == "" || ctx.Err() != nil || o.MaxRetries < 0 || attempt > o.MaxRetries || !rewindable(req)
		wait := backoff(attempt, o.BaseDelay, o.MaxDelay, o.Jitter)
		if !last && r.retryAfter != nil {
			last = *r.retryAfter > o.MaxRetryAfter
			wait = max(wait, *r.retryAfter)
		}
		if dl, ok := ctx.Deadline(); !last && ok && wait > dl.Sub(o.Now()) {
			last = true
		}
		if last {
			resp, err = held(resp, err, release)
			if retries {
				exchanged(obs, ep.URL(), resp, err, ctx.Err())
			}
			return resp, err
		}
		discard(resp)
		release()
		obs.Retried(inference.Retry{Attempt: attempt, Status: r.status, Reason: r.reason, Wait: wait, RetryAfter: r.retryAfter, Err: r.err})
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
		if req.GetBody != nil {
			if req.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		}
	}
}

// firstBody is the body of the first attempt.
func (g *guestTransport) firstBody(req *http.Request) io.ReadCloser {
	if req.Body == nil || req.GetBody == nil {
		return req.Body
	}
	if b, err := req.GetBody(); err == nil {
		return b
	}
	return req.Body
}

// rewindable says whether req can be sent again: no body, or one GetBody
// gives anew.
func rewindable(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

// guestFailure is why an attempt may be retried; reason "" when it may not.
type guestFailure struct {
	reason     string
	status     int
	retryAfter *time.Duration
	err        string
}

func classify(resp *http.Response, err error, now time.Time) guestFailure {
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return guestFailure{}
		}
		return guestFailure{reason: inference.RetryConnection, err: "no response: " + err.Error()}
	}
	if !statusRetried(resp.StatusCode) {
		return guestFailure{}
	}
	f := guestFailure{reason: inference.RetryServer, status: resp.StatusCode, err: fmt.Sprintf("HTTP %d", resp.StatusCode)}
	if resp.StatusCode == http.StatusTooManyRequests {
		f.reason = inference.RetryRateLimited
	}
	if d, ok := retryAfter(resp.Header, now); ok {
		f.retryAfter = &d
	}
	return f
}

// held returns resp with release run when its body is closed (at once
// when there is no response).
func held(resp *http.Response, err error, release func()) (*http.Response, error) {
	if err != nil || resp == nil {
		release()
		return resp, err
	}
	resp.Body = &releasingBody{ReadCloser: resp.Body, release: release}
	return resp, nil
}

// discard reads a little of a retried response's body, so its connection
// can be reused, and closes it.
func discard(resp *http.Response) {
	if resp == nil {
		return
	}
	_, _ = io.CopyN(io.Discard, resp.Body, maxErrorBody)
	_ = resp.Body.Close()
}

type releasingBody struct {
	io.ReadCloser
	once    sync.Once
	release func()
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.release)
	return err
}
