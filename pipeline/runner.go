package pipeline

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	oteltrace "go.opentelemetry.io/otel/trace"
	"golang.org/x/sync/errgroup"

	"github.com/murmur-nexus/murmur-eval/datasets"
)

// Job is one case to run: a dataset line and its epoch.
type Job struct {
	Input datasets.Case
	Epoch int
}

// Runner runs a Graph across jobs on at most Workers goroutines.
type Runner struct {
	Graph   *Graph
	Workers int
	// Timeout bounds each case; 0 means no bound.
	Timeout time.Duration
	// Tracer, when set, gets a span per case with the stages' spans under
	// it; nil means no spans.
	Tracer oteltrace.Tracer
	// NewCase builds a job's Case (run id, session id and dir). It is called
	// on the worker goroutine, concurrently, and must be safe for that.
	NewCase func(Job) *Case
}

// Run executes the jobs and sends every case that started, finished, to done.
// When ctx ends (an interrupt) it starts no more cases; running cases see
// their context cancelled, run their Report stage, and are still sent. Run
// returns when every started case has been sent; it does not close done, and
// the receiver must keep receiving until Run returns. Run returns
// context.Cause(ctx) when it stopped early, nil otherwise.
func (r *Runner) Run(ctx context.Context, jobs []Job, done chan<- *Case) error {
	var g errgroup.Group
	g.SetLimit(max(1, r.Workers))
	for _, job := range jobs {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if ctx.Err() != nil { // interrupted while this job waited for a worker
				return nil
			}
			done <- r.runOne(ctx, job)
			return nil
		})
	}
	_ = g.Wait() // the jobs return no errors: a failed case is data
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return nil
}

func (r *Runner) runOne(ctx context.Context, job Job) *Case {
	var caseCtx context.Context
	var cancel context.CancelFunc
	if r.Timeout > 0 {
		caseCtx, cancel = context.WithTimeoutCause(ctx, r.Timeout, ErrCaseTimeout)
	} else {
		caseCtx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	c := r.NewCase(job)
	c.StartedAt = time.Now()
	if r.Tracer != nil {
		var span oteltrace.Span
		caseCtx, span = r.Tracer.Start(caseCtx, "case", oteltrace.WithAttributes(
			attribute.String("murmur_eval.case_id", c.Input.ID),
			attribute.Int("murmur_eval.epoch", c.Epoch),
			attribute.String("murmur_eval.session_id", c.SessionID),
		))
		defer func() {
			span.SetAttributes(attribute.String("murmur_eval.status", string(Judge(c).Status)))
			span.End()
		}()
	}
	r.Graph.Execute(caseCtx, c)
	return c
}
