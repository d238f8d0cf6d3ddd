package main

import (
	"context"
	"errors"
	"path/filepath"
	"sync"

	"github.com/murmur-nexus/murmur-eval/reports"
)

// sinkSet is the two Parquet files of a run, each owned by one goroutine
// fed by its channel.
type sinkSet struct {
	results chan reports.ResultRow
	events  chan reports.EventRow
	wg      sync.WaitGroup
	errs    [2]error
}

// openSinks creates both files. onFail is called (from a sink goroutine)
// when a sink fails, so the run can stop: its rows could not be kept.
func openSinks(outDir string, onFail func(error)) (*sinkSet, error) {
	rs, err := reports.NewSink[reports.ResultRow](filepath.Join(outDir, "results.parquet"), reports.ResultsLayout())
	if err != nil {
		return nil, err
	}
	es, err := reports.NewSink[reports.EventRow](filepath.Join(outDir, "events.parquet"), reports.EventsLayout())
	if err != nil {
		_ = rs.Abort()
		return nil, err
	}
	s := &sinkSet{results: make(chan reports.ResultRow, 64), events: make(chan reports.EventRow, 1024)}
	// The sinks finish when their channels close; they are never cancelled,
	// so an interrupted run still writes every finished case.
	s.wg.Go(func() { s.errs[0] = drainOnError(rs.Run(context.Background(), s.results), s.results, onFail) })
	s.wg.Go(func() { s.errs[1] = drainOnError(es.Run(context.Background(), s.events), s.events, onFail) })
	return s, nil
}

// drainOnError reports a failed sink and keeps receiving, so the collector
// never blocks; the run then ends with exitFailure.
func drainOnError[T any](err error, ch <-chan T, onFail func(error)) error {
	if err != nil {
		onFail(err)
		for range ch {
		}
	}
	return err
}

func (s *sinkSet) close() error {
	close(s.results)
	close(s.events)
	s.wg.Wait()
	return errors.Join(s.errs[0], s.errs[1])
}
