package pacing

import (
	"sync"
	"time"

	"github.com/murmur-nexus/murmur-eval/pipeline"
)

// quietAfter is how long no case may have worked in the foreground before
// the pacer calls the run quiet and lets background work run. It is longer
// than the gaps between the answers of one wave (tens of microseconds to a
// millisecond on two cores at 1,024 workers) and far shorter than a model's
// latency, so the work of finishing and preparing cases falls between a
// wave's answers and the next wave (RATIONALE.md, "Why does the runner
// prepare cases ahead and finish them in quiet moments?").
const quietAfter = 2 * time.Millisecond

// aheadProbe is how long a quiet moment must last before the workers
// ahead start.
const aheadProbe = 20 * time.Millisecond

// Adaptive decides when a run's cases do their work, around the graph's
// live stage. At most slots cases are in the live stage at once
// (--workers). The work before it (starting a case and preparing its
// session) and after it (finishing a case: Report) is background work: it
// runs when the run is quiet (no live case has worked for quietAfter:
// every session is waiting for its model), or at once when a slot would
// otherwise go unused. A live case works in the foreground, except while
// it waits for its model (pipeline.Wait).
//
// So when a model answers, the next request leaves before the bookkeeping
// of the case that ended and the preparation of the one after: a prepared
// case takes the freed slot at once. Without it, each of a wave's answers
// waited behind the whole transitions (finish, start, prepare) of the ones
// before it, and the next wave's requests left spread over all of their
// CPU (BENCHMARKS.md, issue 19, session 10).
type Adaptive struct {
	quietAfter time.Duration
	slots      int
	mu         sync.Mutex
	// cases counts the cases in flight: started and not yet ended.
	cases int
	// free counts the slots no live case holds, claimed ones included;
	// claims the free slots promised to cases preparing in the foreground.
	free, claims int
	// slotQ holds the prepared cases waiting for a slot, oldest first: a
	// slot given back goes straight to the first.
	slotQ []*seat
	// gateQ holds the cases waiting to prepare or finish, startQ the
	// workers waiting to start a case, oldest first.
	gateQ, startQ []*seat
	// busy counts the cases working in the foreground: live and not
	// awaiting their model, or preparing on a claim.
	busy int
	// quiet is set when busy has been 0 for quietAfter, and cleared when a
	// case works in the foreground again.
	quiet bool
	timer *time.Timer
	// gen counts busy's rises from 0; armed is gen when the timer was last
	// armed, so a timer armed before the run got busy again does nothing.
	gen, armed uint64
	// ahead is closed at the run's first quiet moment that lasts
	// aheadProbe (probeAhead): the workers that prepare cases ahead of the
	// slots start then. A run that is never quiet that long (its cases
	// are CPU-bound: replayed, or a model faster than the machine) has
	// nothing to gain from them and does not start them.
	ahead     chan struct{}
	aheadOpen bool
	probing   bool // probeAhead's timer is set
	// onQuiet, when set, is started on its own goroutine each time the
	// run goes quiet.
	onQuiet func()
}

// NewAdaptive returns an Adaptive pacer of slots slots (at least 1).
// onQuiet, when not nil, is run on a goroutine of its own each time the
// run goes quiet (every live case waits for its model): work that would
// slow the next answers' transitions can be done then (murmur-eval
// collects garbage).
func NewAdaptive(slots int, onQuiet func()) *Adaptive {
	return newAdaptive(slots, quietAfter, onQuiet)
}

func newAdaptive(slots int, quietAfter time.Duration, onQuiet func()) *Adaptive {
	slots = max(1, slots)
	p := &Adaptive{quietAfter: quietAfter, slots: slots, free: slots, ahead: make(chan struct{}), onQuiet: onQuiet}
	p.timer = time.AfterFunc(time.Hour, p.quietTimer)
	p.timer.Stop()
	return p
}

// Seat returns a new worker's place.
func (p *Adaptive) Seat() pipeline.Seat {
	return &seat{p: p, wake: make(chan struct{}, 1)}
}

// Ahead is closed at the run's first quiet moment that lasts 20 ms (no
// model answer came in meanwhile): the model is slower than the machine,
// and cases prepared while it thinks will be ready when it answers.
func (p *Adaptive) Ahead() <-chan struct{} { return p.ahead }

// need is how many free slots no case has claimed. Called with mu held.
func (p *Adaptive) need() int {
	return p.free - p.claims
}

// addBusy changes busy by d. Called with mu held.
func (p *Adaptive) addBusy(d int) {
	was := p.busy
	p.busy += d
	switch {
	case was == 0 && p.busy > 0:
		p.quiet = false
		p.gen++
	case was > 0 && p.busy == 0:
		p.armed = p.gen
		p.timer.Reset(p.quietAfter)
	}
}

// quietTimer runs quietAfter after busy last fell to 0.
func (p *Adaptive) quietTimer() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.busy != 0 || p.gen != p.armed {
		return
	}
	p.quiet = true
	if !p.aheadOpen && !p.probing {
		p.probing = true
		gen := p.gen
		time.AfterFunc(aheadProbe, func() { p.probeAhead(gen) })
	}
	p.wakeGate()
	if p.onQuiet != nil {
		go p.onQuiet()
	}
}

// probeAhead runs aheadProbe after the quiet moment that began at gen,
// and opens Ahead if it still lasts: no model answer came in meanwhile. A run whose quiet moments
// are short (answers stream in: a CPU-bound run, or a fast model) would
// gain nothing from the workers ahead but hold their memory (a thousand
// more sessions at 1,024 workers).
func (p *Adaptive) probeAhead(gen uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.probing = false
	if p.aheadOpen || !p.quiet || p.gen != gen {
		return
	}
	p.aheadOpen = true
	close(p.ahead)
}

// wakeGate wakes every case waiting to do background work: the run is
// quiet. Called with mu held.
func (p *Adaptive) wakeGate() {
	for _, s := range p.gateQ {
		s.signal()
	}
	for _, s := range p.startQ {
		s.signal()
	}
	p.gateQ, p.startQ = nil, nil // let the arrays go: they grew to the largest wait
}

// wakeNeed wakes, oldest first, as many waiting cases as there are free
// slots nobody claimed: the cases waiting to prepare or finish, then the
// workers waiting to start a case if fewer cases than slots are in flight.
// Each woken one goes on. Called with mu held.
func (p *Adaptive) wakeNeed() {
	n := p.need()
	for ; n > 0 && len(p.gateQ) > 0; n-- {
		p.gateQ[0].signal()
		p.gateQ = p.gateQ[1:]
	}
	for ; n > 0 && len(p.startQ) > 0 && p.cases < p.slots; n-- {
		p.startQ[0].signal()
		p.startQ = p.startQ[1:]
	}
}

// dropFrom removes s from q, if it is there. Called with mu held.
func dropFrom(q []*seat, s *seat) []*seat {
	for i, o := range q {
		if o == s {
			return append(q[:i], q[i+1:]...)
		}
	}
	return q
}
