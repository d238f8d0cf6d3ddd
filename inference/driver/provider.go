package driver

import (
	"context"

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
// reported to obs after the driver returns, on the caller's goroutine. A
// turn the driver failed is a harness error when the host saw why
// (harnessError: credentials refused, a request denied by the network
// policy, no answer, the endpoint unreachable), never the model's failure.
// The provider's usage is the one the host saw in the driver's 2xx
// answers (providerUsage), else the one the driver returned.
func (p *provider) Complete(ctx context.Context, req *inference.Request, obs inference.Observer) (*inference.Response, error) {
	payload, sent, err := p.cont.payload(req)
	if err != nil {
		return nil, errcode.Wrap(errcode.RunAgentLoop, err, "failed to encode driver payload")
	}
	log := &turnLog{}
	res, err := p.drv.Run(httpapi.WithRetries(ctx, log), payload)
	exchanges := log.flush(obs)
	if err != nil {
		if ctx.Err() != nil {
			// The cause says what stopped the turn as it is: an unreachable
			// endpoint's E-EVL-018 already names the driver ("driver: driver:").
			return nil, context.Cause(ctx)
		}
		if herr := harnessError(exchanges, res.Denied, err.Error()); herr != nil {
			return nil, herr
		}
		return nil, errcode.Wrap(errcode.RunAgentLoop, err, "driver invocation failed")
	}
	resp, err := Response(res)
	if err != nil {
		return nil, err
	}
	if resp.DriverFailed {
		if herr := harnessError(exchanges, res.Denied, resp.Error); herr != nil {
			return nil, herr
		}
		return resp, nil
	}
	if u := providerUsage(exchanges); u != nil {
		resp.Usage = u
	}
	p.cont = p.cont.next(continuationID(res.Metadata), req.Messages[:sent])
	return resp, nil
}
