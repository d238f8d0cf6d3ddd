package pipeline

import (
	"context"
	"time"
)

// Prepare runs the graph's shared stages once, in order, on a scratch case,
// before any real case starts: they memoise their results, so every case
// then finds the run-wide work done and its --timeout measures only its own
// work. It returns the time taken and the first stage error, which the
// caller may report; the memoised error is what each case will record in
// its row. The results it made that hold something open are the run's, for
// Close.
func (g *Graph) Prepare(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	var c Case
	defer g.closeResults(&c) // shared results only: kept, not closed
	for _, n := range g.order {
		if !n.Shared {
			continue
		}
		if err := runNode(ctx, n, &c); err != nil {
			return time.Since(start), err
		}
	}
	return time.Since(start), nil
}
