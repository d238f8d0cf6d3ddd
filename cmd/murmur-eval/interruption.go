package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"sync/atomic"
	"time"

	"github.com/murmur-nexus/murmur-eval/pipeline"
)

// interruption says what an interrupt (SIGINT, SIGTERM) does to a run when
// it comes, and what the run left when it ends. The first interrupt
// cancels the running cases at once and starts no more (RATIONALE.md,
// "Why does the first Ctrl-C cancel the running cases?"); the run then
// writes the finished cases' rows and its summary. A second one exits at
// once (main).
type interruption struct {
	stderr  io.Writer
	running atomic.Int64 // cases started and not yet handed to the collector
	// checkLimit is --check-timeout when a selected case runs a dataset
	// command, 0 otherwise: a check already under way (Report runs
	// whatever the case's end, so its row is written) is not cancelled.
	checkLimit atomic.Int64
}

// runsChecks records that the run's cases may run dataset checks, each
// bounded by limit unless it sets its own.
func (in *interruption) runsChecks(limit time.Duration) { in.checkLimit.Store(int64(limit)) }

// jobs counts each job the runner takes as a running case.
func (in *interruption) jobs(seq iter.Seq[pipeline.Job]) iter.Seq[pipeline.Job] {
	return func(yield func(pipeline.Job) bool) {
		for j := range seq {
			in.running.Add(1)
			if !yield(j) {
				return
			}
		}
	}
}

// relay passes the runner's finished cases on to the collector, counting
// each one no longer running. It returns when from is closed, and closes
// to.
func (in *interruption) relay(from <-chan *pipeline.Case, to chan<- *pipeline.Case) {
	for c := range from {
		in.running.Add(-1)
		to <- c
	}
	close(to)
}

// watch prints, when ctx ends with an interrupt, what the run does about
// it. stop unregisters it.
func (in *interruption) watch(ctx context.Context) (stop func() bool) {
	return context.AfterFunc(ctx, func() {
		if errors.Is(context.Cause(ctx), pipeline.ErrInterrupted) {
			fmt.Fprintln(in.stderr, interruptedLine(int(in.running.Load()), time.Duration(in.checkLimit.Load())))
		}
	})
}

// interruptedLine is what the run prints when it is interrupted with
// running cases running; checkLimit is the dataset checks' default time
// limit, 0 when the run has none.
func interruptedLine(running int, checkLimit time.Duration) string {
	what := "starting no more cases"
	if running > 0 {
		what = fmt.Sprintf("cancelling the %s and starting no more", plural(running, "running case"))
	}
	if running > 0 && checkLimit > 0 {
		what += fmt.Sprintf(" (a dataset check already under way still runs, up to its time limit: --check-timeout %s unless it sets timeout_seconds)", checkLimit)
	}
	return "murmur-eval: interrupted: " + what + "; the finished cases' rows and the summary are being written (Ctrl-C again exits at once without them)"
}

// stoppedLine is the run's last line after an interrupt: how many of the
// planned cases finished, were cancelled (they run again on --resume,
// as do the cases whose retries the interrupt cut short) and never
// started.
func stoppedLine(planned, rows, unfinished int) string {
	finished := rows - unfinished
	var b strings.Builder
	fmt.Fprintf(&b, "%s finished", plural(finished, "case"))
	if unfinished > 0 {
		fmt.Fprintf(&b, ", %d %s cancelled", unfinished, wasWere(unfinished))
	}
	if n := planned - rows; n > 0 {
		fmt.Fprintf(&b, ", %d not started", n)
	}
	return b.String()
}

func wasWere(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}
