package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
)

// provider is one case's conversation with an API.
type provider struct {
	c   *Client
	api API
}

// Complete sends req, retrying what may be retried, and decodes the answer.
func (p *provider) Complete(ctx context.Context, req *inference.Request, obs inference.Observer) (*inference.Response, error) {
	body, err := p.api.Encode(req)
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "%s: encode request", p.api.Name())
	}
	o := p.c.opts
	for attempt := 1; ; attempt++ {
		if err := p.c.reach.declared(p.api.URL()); err != nil {
			return nil, err
		}
		res := p.c.attempt(ctx, p.api, body)
		switch {
		case res.unreach != nil:
			if err := p.c.reach.failed(p.api, res.unreach); err != nil {
				return nil, err
			}
		case res.ctxErr == nil:
			p.c.reach.answered(p.api.URL())
		}
		switch {
		case res.ctxErr != nil:
			return nil, fmt.Errorf("%s: %w", p.api.Name(), res.ctxErr)
		case res.err == nil:
			resp, err := p.api.Decode(res.body)
			switch {
			case err != nil && errcode.Code(err) != "":
				return nil, err // the API's own code (E-RUN-007: what the loop refuses of a driver)
			case err != nil:
				return nil, errcode.Wrap(errcode.ModelResponse, err, "%s: response %d", p.api.Name(), res.status)
			}
			return resp, nil
		case !res.retry:
			return giveUp(p.api, res, "")
		}
		if o.MaxRetries < 0 || attempt > o.MaxRetries {
			return giveUp(p.api, res, fmt.Sprintf("gave up after %d attempts", attempt))
		}
		wait := backoff(attempt, o.BaseDelay, o.MaxDelay, o.Jitter)
		if res.retryAfter != nil {
			if *res.retryAfter > o.MaxRetryAfter {
				return giveUp(p.api, res, fmt.Sprintf("the server asked to retry after %s, more than %s", res.retryAfter.Round(time.Second), o.MaxRetryAfter))
			}
			wait = max(wait, *res.retryAfter)
		}
		// dl.Sub saturates where Now().Add(wait) could wrap.
		if dl, ok := ctx.Deadline(); ok && wait > dl.Sub(o.Now()) {
			return giveUp(p.api, res, fmt.Sprintf("the next attempt (in %s) would start after the case's deadline (%s left)",
				wait.Round(time.Millisecond), max(0, dl.Sub(o.Now())).Round(time.Millisecond)))
		}
		obs.Retried(inference.Retry{Attempt: attempt, Status: res.status, Reason: res.reason, Wait: wait, RetryAfter: res.retryAfter, Err: res.err.Error()})
		if err := sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("%s: waiting to retry: %w", p.api.Name(), err)
		}
	}
}

// giveUp ends a turn whose last attempt failed and will not be retried.
// A 401 or 403 is a harness error (E-EVL-014): the credentials, not the
// model, failed. Another answer of status 400 or more is what murmur's
// driver would have received: the session ends failed with its text, as
// the driver would end it (murmur retries nothing; the harness's retries
// only made that answer the last one). A redirect, or no answer at all,
// is a harness error; why says why retrying stopped ("" when it was never
// retried).
func giveUp(api API, res result, why string) (*inference.Response, error) {
	switch {
	case authStatus(res.status):
		return nil, AuthError(api.Name(), api.URL(), res.status, res.detail)
	case res.failText != "":
		return Failed(res.failText), nil
	case why == "":
		return nil, res.err
	}
	return nil, unavailable(api, res, why)
}

// unavailable is the error of a request whose retries ran out with no
// answer (connection failures); its hint matches the cause.
func unavailable(api API, res result, why string) error {
	hint := "the connection kept failing: check that the server at inference.endpoint is up and reachable, or raise --timeout"
	if res.unreach != nil {
		hint = res.unreach.hint
	}
	return errcode.Wrap(errcode.ProviderUnavailable, res.err, "%s unavailable: %s", api.Name(), why).WithHint("%s", hint)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// statusRetried reports whether a status is worth another attempt: 408,
// 429 and the 5xx that mean "not now" (not 501 or 505, which will not
// change).
func statusRetried(status int) bool {
	switch {
	case status == http.StatusRequestTimeout, status == http.StatusTooManyRequests:
		return true
	case status == http.StatusNotImplemented, status == http.StatusHTTPVersionNotSupported:
		return false
	}
	return status >= 500 && status <= 599
}
