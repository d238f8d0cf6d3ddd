package pipeline

import (
	"context"
	"iter"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	oteltrace "go.opentelemetry.io/otel/trace"
	"golang.org/x/sync/errgroup"
)

// Job is one case to run: a dataset line (its case_id, and what NewCase
// makes the case's Input from) and its epoch.
type Job struct {
	ID    string
	Input any
	Epoch int
	// Variant is the name of the run's variant the job runs (--models,
	// --variants); "" in a run without variants.
	Variant string
	// Attempt is the attempt NewCase is asked for (1-based), set by the
	// runner.
	Attempt int
}

// Runner runs a Graph across jobs. Workers goroutines run the cases, one
// each at a time. With a live stage (Node.Live) and a Pacer, the pacer
// says when each case starts, prepares, goes live and finishes, and the
// runner starts Workers more workers when the pacer's Ahead is closed.
type Runner struct {
	Graph   *Graph
	Workers int
	// Timeout bounds the time each case's stages run (not its waits for
	// its turn); 0 means no bound.
	Timeout time.Duration
	// Tracer, when set, gets a span per case with the stages' spans under
	// it; nil means no spans.
	Tracer oteltrace.Tracer
	// Retries is how many times a case that ended in status error (a
	// harness failure: provider, sandbox, I/O) is run again; failed and
	// timeout are verdicts and never retried.
	Retries int
	// Backoff is the wait before retry n (1-based); nil means none.
	Backoff func(n int) time.Duration
	// NewCase builds a job's Case (run id, session id and dir, the input
	// read from the job). It is called on the worker goroutine when the
	// case starts, concurrently, and must be safe for that. An input it
	// cannot read goes in Input as an error (InputOf): the case runs, and
	// fails, as any other.
	NewCase func(Job) *Case

	// Pacer, made for this run with Workers slots, paces the cases around
	// the graph's live stage (package pacing); nil, or a graph without a
	// live stage, runs each case's stages straight through.
	Pacer Pacer
}

// Run executes the jobs and sends every case that started, finished, to done.
// It takes the next job only when a worker is free: jobs may make each one
// as it is asked (no list of a large run held). When ctx ends (an
// interrupt) it starts no more cases; running cases see their context
// cancelled, run their Report stage, and are still sent. Run returns when
// every started case has been sent; it does not close done, and the
// receiver must keep receiving until Run returns. Run returns
// context.Cause(ctx) when it stopped early, nil otherwise.
func (r *Runner) Run(ctx context.Context, jobs iter.Seq[Job], done chan<- *Case) error {
	// Workers goroutines that each take the next job when free, rather
	// than a goroutine per job: a worker's stack, grown by its first case,
	// serves the next ones (growing a fresh goroutine's stack was 3% of a
	// waiting case's CPU, BENCHMARKS.md, issue 19, session 8).
	next, stop := iter.Pull(jobs)
	defer stop()
	var mu sync.Mutex
	exhausted := make(chan struct{}) // closed when the last job is taken
	take := func() (Job, bool) {
		mu.Lock()
		defer mu.Unlock()
		if ctx.Err() != nil {
			return Job{}, false
		}
		job, ok := next()
		if !ok {
			select {
			case <-exhausted:
			default:
				close(exhausted)
			}
		}
		return job, ok
	}
	var g errgroup.Group
	if r.Graph.live < 0 || r.Pacer == nil {
		for range max(1, r.Workers) {
			g.Go(func() error {
				for job, ok := take(); ok; job, ok = take() {
					done <- r.runAttempts(ctx, job, nil)
				}
				return nil
			})
		}
	} else {
		// As many workers as slots, and as many again when the pacer
		// opens Ahead: while one case of a slot talks to its model, the
		// next is prepared, or the last one finished (pacing.Adaptive).
		work := func(s Seat) error {
			for {
				s.Await(ctx, TurnStart)
				job, ok := take()
				if !ok {
					s.Release(TurnStart)
					return nil
				}
				done <- r.runAttempts(ctx, job, s)
				s.Release(TurnStart)
			}
		}
		for range max(1, r.Workers) {
			s := r.Pacer.Seat()
			g.Go(func() error { return work(s) })
		}
		// The workers ahead are started then, not only released: a run
		// that never opens Ahead starts no goroutines it does not use, and
		// goroutines started after a collection begin with the stack size
		// the runtime saw goroutines use (no wall difference was measured
		// for it, BENCHMARKS.md, session 10). This goroutine is one of the
		// group while it starts them, so they join a group still running.
		if ahead := r.Pacer.Ahead(); ahead != nil {
			g.Go(func() error {
				select {
				case <-ahead:
				case <-exhausted:
					return nil
				case <-ctx.Done():
					return nil
				}
				for range max(1, r.Workers) {
					s := r.Pacer.Seat()
					g.Go(func() error { return work(s) })
				}
				return nil
			})
		}
	}
	_ = g.Wait() // the jobs return no errors: a failed case is data
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return nil
}

// runAttempts runs job until it ends in anything but error, or the retries
// are spent, or the run is interrupted; the last attempt carries the
// earlier ones.
func (r *Runner) runAttempts(ctx context.Context, job Job, s Seat) *Case {
	var earlier []*Case
	for attempt := 1; ; attempt++ {
		c := r.runOne(ctx, job, attempt, s)
		if attempt > r.Retries || c.Verdict().Status != StatusError || ctx.Err() != nil {
			c.Earlier = earlier
			cutShort(ctx, c, attempt <= r.Retries)
			return c
		}
		earlier = append(earlier, c)
		if r.Backoff != nil {
			t := time.NewTimer(r.Backoff(attempt))
			select {
			case <-ctx.Done():
			case <-t.C:
			}
			t.Stop()
		}
		if ctx.Err() != nil {
			c.Earlier = earlier[:len(earlier)-1]
			cutShort(ctx, c, true)
			return c
		}
	}
}

// cutShort records on a case in error that the interrupt, not its
// retries running out, ended it: EndCause tells a resumed run to run it
// again. Its status stays error (Judge reads EndCause only for a stage that
// failed because its context ended).
func cutShort(ctx context.Context, c *Case, retriesLeft bool) {
	if retriesLeft && ctx.Err() != nil && c.EndCause == nil && c.Verdict().Status == StatusError {
		c.EndCause = context.Cause(ctx)
		c.settle()
	}
}

// ExpBackoff returns a backoff that starts at base and doubles per retry,
// capped at limit.
func ExpBackoff(base, limit time.Duration) func(int) time.Duration {
	return func(n int) time.Duration {
		d := base
		for i := 1; i < n && d < limit; i++ {
			d *= 2
		}
		return min(d, limit)
	}
}

func (r *Runner) runOne(ctx context.Context, job Job, attempt int, s Seat) *Case {
	caseCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if s != nil {
		caseCtx = context.WithValue(caseCtx, seatKey{}, s)
		defer s.Release(TurnFinish)
	}
	job.Attempt = attempt
	c := r.NewCase(job)
	c.Attempt = attempt
	c.StartedAt = time.Now()
	c.timeout, c.pace = r.Timeout, s
	if r.Tracer != nil {
		var span oteltrace.Span
		attrs := []attribute.KeyValue{
			attribute.String("murmur_eval.case_id", c.ID),
			attribute.Int("murmur_eval.epoch", c.Epoch),
			attribute.Int("murmur_eval.attempt", c.Attempt),
			attribute.String("murmur_eval.session_id", c.SessionID),
		}
		if c.Variant != "" {
			attrs = append(attrs, attribute.String("murmur_eval.variant", c.Variant))
		}
		caseCtx, span = r.Tracer.Start(caseCtx, "case", oteltrace.WithAttributes(attrs...))
		defer func() { endCaseSpan(span, c) }()
	}
	r.Graph.Execute(caseCtx, c)
	return c
}

// endCaseSpan records a case's verdict and counters on its span and ends it.
func endCaseSpan(span oteltrace.Span, c *Case) {
	v := c.Verdict()
	attrs := []attribute.KeyValue{attribute.String("murmur_eval.status", string(v.Status))}
	if v.Code != "" {
		attrs = append(attrs, attribute.String("murmur_eval.code", v.Code), attribute.String("murmur_eval.error_stage", v.Stage))
	}
	attrs = append(attrs, resultAttributes(c)...)
	span.SetAttributes(attrs...)
	addResultEvents(span, c)
	// A viewer shows a span's status at a glance, not its attributes: a
	// case without a passing verdict is an error there.
	switch v.Status {
	case StatusError, StatusTimeout:
		span.SetStatus(codes.Error, string(v.Status)+": "+v.Code)
	case StatusFailed:
		span.SetStatus(codes.Error, "failed: a scorer did not pass")
	}
	span.End()
}
