package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"go.opentelemetry.io/otel/propagation"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
)

// Body size limits: a model response is kilobytes; an error body is read
// only for its message.
const (
	maxBody      = 64 << 20
	maxErrorBody = 64 << 10
)

// result is the outcome of one attempt.
type result struct {
	status     int // 0 when no response arrived
	body       []byte
	err        error // nil on success
	ctxErr     error // the case's context ended
	retry      bool  // err may go away on another attempt
	reason     string
	retryAfter *time.Duration
	// failText is set for a status of 400 or more: murmur's driver's
	// message for it (Failure.Text).
	failText string
	// detail is the provider's message of a status of 400 or more, else
	// the start of its body.
	detail string
	// unreach is set when the request did not reach the endpoint at all
	// (no connection, or credentials refused).
	unreach *unreachable
}

// attempt sends one request while holding a slot of the endpoint's bound.
// The slot is released before any backoff, so a waiting retry does not hold
// a connection another case could use.
func (c *Client) attempt(ctx context.Context, api API, body []byte) result {
	sl, err := c.limits.acquire(ctx, api.URL())
	if err != nil {
		return result{ctxErr: err}
	}
	defer sl.release()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, api.URL(), bytes.NewReader(body))
	if err != nil {
		return result{err: errcode.Wrap(errcode.ProviderDriver, err, "%s: bad endpoint", api.Name())}
	}
	api.Header(req.Header)
	req.Header.Set("User-Agent", "murmur-eval")
	// Only a case traced by the run's tracer has a valid span context; the
	// propagator writes nothing otherwise.
	propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(req.Header))
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return result{ctxErr: ctx.Err()}
		}
		return result{err: connErr(api, err), retry: true, reason: inference.RetryConnection, unreach: connUnreachable(err)}
	}
	defer resp.Body.Close()
	sl.answered(resp)
	limit := int64(maxBody)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		limit = maxErrorBody
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		if ctx.Err() != nil {
			return result{ctxErr: ctx.Err()}
		}
		return result{status: resp.StatusCode, err: connErr(api, err), retry: true, reason: inference.RetryConnection}
	}
	if int64(len(data)) > limit {
		if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
			return result{status: resp.StatusCode, err: errcode.New(errcode.ModelResponse, "%s: response larger than %d bytes", api.Name(), maxBody)}
		}
		data = data[:limit]
	}
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		return result{status: resp.StatusCode, body: data}
	}
	return c.failed(api, resp, data)
}

// failed classifies a non-2xx answer. An answer of status 400 or more
// carries the text murmur's driver would end the session with
// (res.failText); its err is for the retry trace.
func (c *Client) failed(api API, resp *http.Response, data []byte) result {
	status := resp.StatusCode
	f := api.Failure(status, data)
	msg := fmt.Sprintf("%s: HTTP %d", api.Name(), status)
	if f.Message != "" {
		msg += ": " + f.Message
	}
	res := result{status: status, err: errors.New(msg)}
	if status >= 400 {
		res.detail = f.Message
		if res.detail == "" {
			res.detail = Snippet(data)
		}
		res.failText = f.Text
		if res.failText == "" {
			res.failText = StatusText(status, data)
		}
	}
	switch {
	case status < 400:
		res.err = redirected(api, resp)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		res.unreach = credentialsRefused(msg)
	case statusRetried(status) && !f.Final:
		res.retry = true
		res.reason = inference.RetryServer
		if status == http.StatusTooManyRequests {
			res.reason = inference.RetryRateLimited
		}
		if d, ok := retryAfter(resp.Header, c.opts.Now()); ok {
			res.retryAfter = &d
		}
	}
	return res
}

// connErr names a failure that left no HTTP response.
func connErr(api API, err error) error {
	msg := err.Error()
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		msg = ue.Err.Error() // drop `Post "url": `: the message names the API
	}
	return fmt.Errorf("%s: no response: %s", api.Name(), msg)
}
