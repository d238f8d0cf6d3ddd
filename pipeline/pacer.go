package pipeline

import (
	"context"
	"sync"
	"time"
)

// quietAfter is how long no case may have worked in the foreground before
// the pacer calls the run quiet and lets background work run. It is longer
// than the gaps between the answers of one wave (tens of microseconds to a
// millisecond on two cores at 1,024 workers) and far shorter than a model's
// latency, so the work of finishing and preparing cases falls between a
// wave's answers and the next wave (RATIONALE.md, "Why does the runner
// prepare cases ahead and finish them in quiet moments?").
const quietAfter = 2 * time.Millisecond

// pacer decides when a run's cases do their work, around the graph's live
// stage (Loop: the session talking to its model). At most slots cases are
// in the live stage at once (--workers). The work before it (starting a
// case and preparing its session) and after it (finishing a case: Report)
// is background work: it runs when the run is quiet (no live case has
// worked for quietAfter: every session is waiting for its model), or at
// once when a slot would otherwise go unused. A live case works in the
// foreground, except while it waits for its model (Wait).
//
// So when a model answers, the next request leaves before the bookkeeping
// of the case that ended and the preparation of the one after: a prepared
// case takes the freed slot at once. Without it, each of a wave's answers
// waited behind the whole transitions (finish, start, prepare) of the ones
// before it, and the next wave's requests left spread over all of their
// CPU (BENCHMARKS.md, issue 19, session 10).
type pacer struct {
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
	slotQ []*pace
	// gateQ holds the cases waiting to prepare or finish, startQ the
	// workers waiting to start a case, oldest first.
	gateQ, startQ []*pace
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
	probing   bool // probeAhead is running
	// onQuiet, when set, is started on its own goroutine each time the
	// run goes quiet (Runner.OnQuiet).
	onQuiet func()
}

func newPacer(slots int, quietAfter time.Duration) *pacer {
	p := &pacer{quietAfter: quietAfter, slots: slots, free: slots, ahead: make(chan struct{})}
	p.timer = time.AfterFunc(time.Hour, p.quietTimer)
	p.timer.Stop()
	return p
}

// pace is one worker's place in the pacer, for the case it runs.
type pace struct {
	p *pacer
	// wake is signalled when the worker may re-check (gate) or has been
	// handed a slot (live is then set); buffered, so a signal is never lost.
	wake chan struct{}
	// claimed: the case prepares in the foreground for a free slot it will
	// take. live: the case holds a slot. awaiting: it waits for its model.
	// started: the worker has a case in flight (counted in cases).
	// handed: the slot the case left went straight to a prepared case.
	claimed, live, awaiting, started, handed bool
}

func (p *pacer) newPace() *pace {
	return &pace{p: p, wake: make(chan struct{}, 1)}
}

// need is how many free slots no case has claimed. Called with mu held.
func (p *pacer) need() int {
	return p.free - p.claims
}

// addBusy changes busy by d. Called with mu held.
func (p *pacer) addBusy(d int) {
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
func (p *pacer) quietTimer() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.busy != 0 || p.gen != p.armed {
		return
	}
	p.quiet = true
	if !p.aheadOpen && !p.probing {
		p.probing = true
		go p.probeAhead(p.gen)
	}
	p.wakeGate()
	if p.onQuiet != nil {
		go p.onQuiet()
	}
}

// aheadProbe is how long a quiet moment must last before the workers
// ahead start.
const aheadProbe = 20 * time.Millisecond

// probeAhead starts the workers ahead if the quiet moment that began at
// gen lasts aheadProbe: no model answer came in meanwhile. Then the model
// is slower than the machine, and cases prepared while it thinks will be
// ready when it answers. A run whose quiet moments are short (answers
// stream in: a CPU-bound run, or a fast model) would gain nothing from
// them but hold their memory (a thousand more sessions at 1,024 workers).
func (p *pacer) probeAhead(gen uint64) {
	time.Sleep(aheadProbe)
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
func (p *pacer) wakeGate() {
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
func (p *pacer) wakeNeed() {
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

func (s *pace) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// dropFrom removes s from q, if it is there. Called with mu held.
func dropFrom(q []*pace, s *pace) []*pace {
	for i, o := range q {
		if o == s {
			return append(q[:i], q[i+1:]...)
		}
	}
	return q
}

// work is what a worker waits to do outside the live stage.
type work int

const (
	starting  work = iota // taking the next job
	preparing             // a stage before the live one
	finishing             // a stage after it
)

// background waits until the worker may do w. A case preparing for a
// slot nobody else will use claims it and goes on in the foreground. A
// new case starts on such a slot only while fewer cases than slots are
// in flight: a run that is never quiet (CPU-bound) keeps to as many cases
// as slots, as without a pacer, and only quiet moments start the cases
// prepared ahead. It returns at once when ctx ends, and reports whether
// it waited.
func (s *pace) background(ctx context.Context, w work) (waited bool) {
	p := s.p
	for ; ; waited = true {
		p.mu.Lock()
		if w == finishing && s.claimed {
			// The case failed before it went live: its claim goes to
			// another case.
			s.release()
		}
		pass, claim := false, false
		switch {
		case s.claimed, p.quiet, ctx.Err() != nil:
			pass = true
		case w == finishing && !s.handed:
			// Nobody took the slot the case left: its worker is the one
			// to fill it again, so finishing is on the way to the next
			// request.
			pass = true
		case p.need() > 0:
			switch w {
			case starting:
				pass, claim = p.cases < p.slots, true
			case preparing:
				pass, claim = true, true
			case finishing:
				pass = true
			}
		}
		if pass {
			if claim {
				s.claimed = true
				p.claims++
				p.addBusy(1)
			}
			if w == starting {
				s.started = true
				p.cases++
			}
			p.mu.Unlock()
			return waited
		}
		if w == starting {
			p.startQ = append(p.startQ, s)
		} else {
			p.gateQ = append(p.gateQ, s)
		}
		p.mu.Unlock()
		select {
		case <-s.wake:
		case <-ctx.Done():
			p.mu.Lock()
			p.gateQ, p.startQ = dropFrom(p.gateQ, s), dropFrom(p.startQ, s)
			p.mu.Unlock()
		}
	}
}

// release gives back an unused claim. Called with mu held.
func (s *pace) release() {
	p := s.p
	s.claimed = false
	p.claims--
	p.addBusy(-1)
	p.wakeNeed()
}

// enterLive waits for a slot. It returns at once when ctx ends, without
// one (the stage then fails with the context's cause), and reports whether
// it waited.
func (s *pace) enterLive(ctx context.Context) (waited bool) {
	p := s.p
	p.mu.Lock()
	switch {
	case s.claimed:
		s.claimed = false
		p.claims--
		p.free--
		s.live = true // busy already counts the claim
	case p.need() > 0:
		p.free--
		s.live = true
		p.addBusy(1)
	case ctx.Err() == nil:
		p.slotQ = append(p.slotQ, s)
		waited = true
	}
	p.mu.Unlock()
	for {
		p.mu.Lock()
		if s.live || ctx.Err() != nil {
			p.slotQ = dropFrom(p.slotQ, s)
			p.mu.Unlock()
			return waited
		}
		p.mu.Unlock()
		select {
		case <-s.wake: // handed a slot, or a stale gate signal: look again
		case <-ctx.Done():
		}
	}
}

// leaveLive gives the case's slot to the oldest prepared case waiting, or
// back to the free ones.
func (s *pace) leaveLive() {
	p := s.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if !s.live {
		return
	}
	s.live = false
	if !s.awaiting {
		p.addBusy(-1)
	}
	s.awaiting = false
	s.handed = len(p.slotQ) > 0
	if s.handed {
		next := p.slotQ[0]
		p.slotQ = p.slotQ[1:]
		next.live = true
		p.addBusy(1)
		next.signal()
		return
	}
	p.free++
	p.wakeNeed()
}

// leave gives back the claim or slot an attempt of a case still holds:
// one that failed before its live stage, or was cancelled.
func (s *pace) leave() {
	s.leaveLive()
	p := s.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.claimed {
		s.release()
	}
	s.handed = false // the next attempt's Report must not read this one's
}

// end is called when the worker's case has ended (all its attempts), or
// when the worker found no job to start.
func (s *pace) end() {
	s.leave()
	p := s.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.started {
		s.started = false
		p.cases--
		p.wakeNeed() // a start may have waited for the count to fall
	}
}

// beginWait marks the live case as waiting for its model.
func (s *pace) beginWait() {
	p := s.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.live && !s.awaiting {
		s.awaiting = true
		p.addBusy(-1)
	}
}

// endWait marks the live case as working again.
func (s *pace) endWait() {
	p := s.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.live && s.awaiting {
		s.awaiting = false
		p.addBusy(1)
	}
}

// paceKey is the context key of the case's pace.
type paceKey struct{}

// Wait marks a live case as waiting for an answer from outside the process
// (its model), during which the pacer may run other cases' background
// work. The Loop stage calls Begin when a request has left (an HTTP
// request written) and End when the answer comes (its first byte) and when
// the call returns. Both may be called from any goroutine, more than once;
// the zero Wait (no pacer: a graph with no live stage, a test) does
// nothing.
type Wait struct{ s *pace }

// WaitOf returns the Wait of the case running in ctx.
func WaitOf(ctx context.Context) Wait {
	s, _ := ctx.Value(paceKey{}).(*pace)
	return Wait{s: s}
}

// Begin marks the case as waiting.
func (w Wait) Begin() {
	if w.s != nil {
		w.s.beginWait()
	}
}

// End marks the case as working again.
func (w Wait) End() {
	if w.s != nil {
		w.s.endWait()
	}
}
