package pipeline

import (
	"context"
	"errors"
	"reflect"
	"runtime/debug"
	"strings"
	"time"

	"go.opentelemetry.io/otel/codes"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// tracerName names the OpenTelemetry tracer of the executor's spans.
const tracerName = "github.com/murmur-nexus/murmur-eval/pipeline"

// Execute runs the graph's stages for one case, in order, on the calling
// goroutine, and records a StageResult for each in c.Stages.
//
// A stage whose requirement failed or was skipped is skipped with "failed
// prerequisites: ...", unless its node runs despite failure. Such nodes
// (Report) run with a context that is not cancelled by ctx, so a case that
// timed out or was interrupted still closes its trace and gets its row. A
// panicking stage fails with E-EVL-099 instead of crashing the run, and so
// does a stage that stores another stage's result, reads the result of a
// stage it does not require, or returns nil without storing the result
// its node declares.
//
// Each stage that runs gets an OpenTelemetry span, a child of the span in
// ctx (the runner's case span), from that span's tracer provider; with no
// span in ctx the spans are no-ops. A stored result that is Observable
// (Launch's session) is handed the tracer once, so each inference and tool
// call gets a span under the stage that makes it (Loop).
//
// After the last stage, the case's results that hold something open
// (Closer) are closed in reverse stage order (closer.go); a failure fails
// the stage that produced the result.
func (g *Graph) Execute(ctx context.Context, c *Case) {
	c.Stages = make([]StageResult, 0, len(g.order))
	var timed boundedCtx // the stages' context, bounded by --timeout
	defer timed.release()
	for i, n := range g.order {
		name := n.Name
		noteEnd(ctx, c)
		if bad := g.unmet(c, n); len(bad) > 0 && !n.RunDespiteFailure {
			c.Stages = append(c.Stages, StageResult{
				Stage:   name,
				Outcome: Skipped,
				Err:     errcode.New(errcode.Prerequisite, "failed prerequisites: %s", strings.Join(bad, ", ")),
			})
			continue
		}
		if g.waitTurn(ctx, c, i) {
			timed.release() // the wait is not counted: bound the next stages from now
		}
		var stageCtx context.Context
		if n.RunDespiteFailure {
			stageCtx = context.WithoutCancel(ctx)
		} else if err := c.outOfTime(ctx); err != nil {
			// The case ran out of time (or the run was interrupted) between
			// stages: this stage fails with the cause instead of starting.
			c.Stages = append(c.Stages, StageResult{Stage: name, Outcome: Failed, Err: err})
			g.endTurn(c, i)
			continue
		} else {
			stageCtx = timed.get(ctx, c)
		}
		spanCtx, span := oteltrace.SpanFromContext(ctx).TracerProvider().Tracer(tracerName).Start(stageCtx, "stage "+name)
		observeResults(spanCtx, c)
		start := time.Now()
		err := runNode(spanCtx, n, c)
		r := StageResult{Stage: name, Outcome: Ran, Duration: time.Since(start)}
		if !n.RunDespiteFailure {
			c.spent += r.Duration
			if c.EndCause == nil && errors.Is(context.Cause(stageCtx), ErrCaseTimeout) {
				c.EndCause = ErrCaseTimeout
			}
		}
		if err != nil {
			r.Outcome, r.Err = Failed, err
			span.RecordError(err)
			span.SetStatus(codes.Error, errcode.Code(err))
		}
		span.End()
		c.Stages = append(c.Stages, r)
		g.endTurn(c, i)
	}
	// The stages are done with the results: those that hold something
	// open are closed now, before the case is judged and handed on.
	g.closeResults(c)
	noteEnd(ctx, c)
	c.settle()
}

// waitTurn waits, untimed, until the pacer lets the case run the stage at
// position i: a slot for the live stage, a quiet moment (or an otherwise
// unused slot) for the others. Shared stages only read their memo. It
// reports whether it waited.
func (g *Graph) waitTurn(ctx context.Context, c *Case, i int) bool {
	switch {
	case c.pace == nil || g.live < 0 || g.order[i].Shared:
		return false
	case i == g.live:
		return c.pace.Await(ctx, TurnLive)
	case i < g.live:
		return c.pace.Await(ctx, TurnPrepare)
	default:
		return c.pace.Await(ctx, TurnFinish)
	}
}

// endTurn gives back the slot after the live stage.
func (g *Graph) endTurn(c *Case, i int) {
	if c.pace != nil && i == g.live {
		c.pace.Release(TurnLive)
	}
}

// boundedCtx is a case's context bounded by what is left of its --timeout.
// The stages between two waits for the case's turn share one (not one per
// stage: a timer each was 1.5% of a waiting case's CPU).
type boundedCtx struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// get returns the bounded context, made from ctx and what c has left of
// its --timeout, from now, if there is none since the last release.
func (b *boundedCtx) get(ctx context.Context, c *Case) context.Context {
	if b.ctx == nil {
		b.ctx = ctx
		if c.timeout > 0 {
			b.ctx, b.cancel = context.WithTimeoutCause(ctx, c.timeout-c.spent, ErrCaseTimeout)
		}
	}
	return b.ctx
}

// release drops the bounded context; the next get makes a new one.
func (b *boundedCtx) release() {
	if b.cancel != nil {
		b.cancel()
	}
	b.ctx, b.cancel = nil, nil
}

// outOfTime returns why the case may not start another stage: the run was
// interrupted, or the case has spent its --timeout.
func (c *Case) outOfTime(ctx context.Context) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if c.timeout > 0 && c.spent >= c.timeout {
		if c.EndCause == nil {
			c.EndCause = ErrCaseTimeout
		}
		return ErrCaseTimeout
	}
	return nil
}

// noteEnd records why the case's context ended, the first time it has.
func noteEnd(ctx context.Context, c *Case) {
	if c.EndCause == nil && ctx.Err() != nil {
		c.EndCause = context.Cause(ctx)
	}
}

// unmet returns the requirements of n that did not run successfully.
func (g *Graph) unmet(c *Case, n Node) []string {
	var bad []string
	for _, r := range n.Requires {
		if res, ok := c.Stage(r); !ok || res.Outcome != Ran {
			bad = append(bad, r)
		}
	}
	return bad
}

// runNode runs n's stage on c under the result rules (result.go): it may
// read its requirements' results and store only its own, which it must
// store when it succeeds.
func runNode(ctx context.Context, n Node, c *Case) error {
	name := n.Name
	// Store refuses, as a violation, a result of any stage but the one
	// running, so no stage can change another's result: nothing needs
	// comparing afterwards (a copy of the results per stage was 2.6% of a
	// waiting case's allocations).
	c.running, c.requires, c.violation = name, n.Requires, nil
	err := runStage(ctx, n.Stage, c)
	violation := c.violation
	c.running, c.requires, c.violation = "", nil, nil
	if violation != nil {
		return violation
	}
	if err != nil || n.Produces == nil {
		return err
	}
	v, ok := c.results[name]
	if !ok {
		return errcode.New(errcode.Internal, "stage %s stored no result", name)
	}
	if got := reflect.TypeOf(v); got != n.Produces.Type() {
		return errcode.New(errcode.Internal, "stage %s stored a %s, not its declared %s", name, got, n.Produces.Type())
	}
	return nil
}

func runStage(ctx context.Context, s Stage, c *Case) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errcode.New(errcode.Internal, "panic in stage %s: %v\n%s", s.Name(), p, debug.Stack())
		}
	}()
	return s.Run(ctx, c)
}
