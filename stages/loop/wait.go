package loop

import (
	"context"
	"net/http/httptrace"

	"github.com/murmur-nexus/murmur-eval/pipeline"
)

// waiting returns ctx with an HTTP client trace that tells the runner's
// pacer when the case waits for its model: from when a request has been
// written (its connection dialled, its body sent) until the answer's first
// byte. Only that time is the model's; encoding, sending and decoding are
// the case's own work, which the pacer must not mistake for a quiet moment.
// pipeline.Wait is all the Loop knows of pacing: which pacer runs (package
// pipeline/pacing), and whether it uses the waits, is cmd's choice. A model
// that is not reached over HTTP (replay, a process CLI) never waits in this
// sense.
func waiting(ctx context.Context) (context.Context, pipeline.Wait) {
	w := pipeline.WaitOf(ctx)
	if w == (pipeline.Wait{}) {
		return ctx, w
	}
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest:         func(httptrace.WroteRequestInfo) { w.Begin() },
		GotFirstResponseByte: w.End,
	}), w
}
