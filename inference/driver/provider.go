package driver

import (
	"context"
	"fmt"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
)

// provider is one case's conversation with its driver component.
type provider struct {
	drv  inference.Driver
	cont *continuation // the driver's continuation, nil when none is held
}

// Complete runs the driver once on req (murmur-session.md §1.4 steps 4-5
// and 9). Retries the run's HTTP policy made for the driver's requests are
// reported to obs after the driver returns, on the caller's goroutine.
func (p *provider) Complete(ctx context.Context, req *inference.Request, obs inference.Observer) (*inference.Response, error) {
	payload, sent, err := p.cont.payload(req)
	if err != nil {
		return nil, errcode.Wrap(errcode.RunAgentLoop, err, "failed to encode driver payload")
	}
	log := &retryLog{}
	res, err := p.drv.Run(httpapi.WithRetries(ctx, log), payload)
	log.flush(obs)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("driver: %w", context.Cause(ctx))
		}
		return nil, errcode.Wrap(errcode.RunAgentLoop, err, "driver invocation failed")
	}
	resp, err := Response(res)
	if err != nil {
		return nil, err
	}
	if resp.DriverFailed {
		return resp, nil
	}
	p.cont = p.cont.next(continuationID(res.Metadata), req.Messages[:sent])
	return resp, nil
}
