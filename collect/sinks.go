package collect

import (
	"context"
	"errors"
	"path/filepath"
	"sync"

	"github.com/murmur-nexus/murmur-eval/reports"
)

// Sinks is the two Parquet files of a run, each owned by one goroutine
// fed by its channel.
type Sinks struct {
	results chan reports.ResultRow
	events  chan reports.EventRow
	wg      sync.WaitGroup
	errs    [2]error
}

// OpenSinks creates both files. onFail is called (from a sink goroutine)
// when a sink fails, so the run can stop: its rows could not be kept.
func OpenSinks(outDir string, onFail func(error)) (*Sinks, error) {
	rs, err := reports.NewSink[reports.ResultRow](filepath.Join(outDir, "results.parquet"), reports.ResultsLayout())
	if err != nil {
		return nil, err
	}
	es, err := reports.NewSink[reports.EventRow](filepath.Join(outDir, "events.parquet"), reports.EventsLayout())
	if err != nil {
		_ = rs.Abort()
		return nil, err
	}
	s := &Sinks{results: make(chan reports.ResultRow, 64), events: make(chan reports.EventRow, 1024)}
	// The sinks finish when their channels close; they are never cancelled,
	// so an interrupted run still writes every finished case.
	s.wg.Go(func() { s.errs[0] = drainOnError(rs.Run(context.Background(), s.results), s.results, onFail) })
	s.wg.Go(func() { s.errs[1] = drainOnError(es.Run(context.Background(), s.events), s.events, onFail) })
	return s, nil
}

// drainOnError reports a failed sink and keeps receiving, so the collector
// never blocks; the run then ends in failure.
func drainOnError[T any](err error, ch <-chan T, onFail func(error)) error {
	if err != nil {
		onFail(err)
		for range ch {
		}
	}
	return err
}

// Close closes the channels, waits for both files to be written, and
// returns their errors.
func (s *Sinks) Close() error {
	close(s.results)
	close(s.events)
	s.wg.Wait()
	return errors.Join(s.errs[0], s.errs[1])
}

// ScoreSink is scores.parquet, owned by one goroutine fed by its channel,
// like the two of Sinks.
type ScoreSink struct {
	Sink *reports.Sink[reports.ScoreRow]
	rows chan reports.ScoreRow
	wg   sync.WaitGroup
	err  error
}

// NewScoreSink creates scores.parquet's temporary file; start runs it.
func NewScoreSink(outDir string) (*ScoreSink, error) {
	s, err := reports.NewSink[reports.ScoreRow](filepath.Join(outDir, reports.ScoresFile), reports.ScoresLayout())
	if err != nil {
		return nil, err
	}
	return &ScoreSink{Sink: s, rows: make(chan reports.ScoreRow, 256)}, nil
}

// Start runs the sink's goroutine; onFail is called if it fails.
func (s *ScoreSink) Start(onFail func(error)) {
	s.wg.Go(func() { s.err = drainOnError(s.Sink.Run(context.Background(), s.rows), s.rows, onFail) })
}

// Close closes the channel, waits for the file to be written, and returns
// its error.
func (s *ScoreSink) Close() error {
	close(s.rows)
	s.wg.Wait()
	return s.err
}
