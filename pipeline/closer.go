package pipeline

import (
	"errors"
	"reflect"
	"runtime/debug"
	"sync"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Closer is a stage result that holds something open: Launch's session
// (the trace), Stage's (the case's workspace). The executor, not the
// stages that read it, closes it, in reverse stage order: a case's
// results after its last stage has run (Report still sees them open) and
// before the case is handed on (its row and journal line are written
// after); a shared stage's result once, by Graph.Close after the run's
// cases.
//
// A case's result that fails to close fails the stage that produced it
// (if it had not failed already), so the case ends in error with the
// close's code. Close is called once, on the case's goroutine.
type Closer interface {
	Close() error
}

// closeResults closes the case's Closer results in reverse stage order and
// records a failure on the stage that produced the result. A shared
// stage's result is kept for Graph.Close instead.
func (g *Graph) closeResults(c *Case) {
	for i := len(g.order) - 1; i >= 0; i-- {
		n := g.order[i]
		v, ok := c.results[n.Name]
		if !ok {
			continue
		}
		cl, ok := v.(Closer)
		if !ok {
			continue
		}
		if n.Shared {
			g.run.keep(i, cl)
			continue
		}
		if err := closeResult(n.Name, cl); err != nil {
			c.failStage(n.Name, err)
		}
	}
}

// closeResult closes one result; a panic is an E-EVL-099 error.
func closeResult(stage string, cl Closer) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errcode.New(errcode.Internal, "panic closing the result of stage %s: %v\n%s", stage, p, debug.Stack())
		}
	}()
	return cl.Close()
}

// failStage records err on the named stage's record when the stage ran
// without failing: the first failure of a stage is the one its record
// keeps.
func (c *Case) failStage(name string, err error) {
	for i := range c.Stages {
		if r := &c.Stages[i]; r.Stage == name && r.Outcome == Ran {
			r.Outcome, r.Err = Failed, err
			return
		}
	}
}

// runResults are the shared stages' results a run's cases and
// Graph.Prepare stored that hold something open, kept for Graph.Close.
type runResults struct {
	mu   sync.Mutex
	kept map[int][]Closer // position in the graph's order → distinct results
}

// keep remembers cl, the result of the shared node at position i, once.
func (r *runResults) keep(i int, cl Closer) {
	if !reflect.TypeOf(cl).Comparable() {
		return // cannot tell one from another: the stage must close it itself
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range r.kept[i] {
		if k == cl {
			return
		}
	}
	if r.kept == nil {
		r.kept = map[int][]Closer{}
	}
	r.kept[i] = append(r.kept[i], cl)
}

// Close closes the shared stages' results that hold something open
// (Closer), each once, in reverse stage order, and forgets them: call it
// when the run's last case has finished. It returns every failure, joined;
// a shared result's failure fails no case (they have all finished).
func (g *Graph) Close() error {
	g.run.mu.Lock()
	kept := g.run.kept
	g.run.kept = nil
	g.run.mu.Unlock()
	var errs []error
	for i := len(g.order) - 1; i >= 0; i-- {
		for _, cl := range kept[i] {
			errs = append(errs, closeResult(g.order[i].Name, cl))
		}
	}
	return errors.Join(errs...)
}
