package pacing

import (
	"context"

	"github.com/murmur-nexus/murmur-eval/pipeline"
)

// seat is one worker's place in an Adaptive pacer, for the case it runs.
type seat struct {
	p *Adaptive
	// wake is signalled when the worker may re-check (gate) or has been
	// handed a slot (live is then set); buffered, so a signal is never lost.
	wake chan struct{}
	// claimed: the case prepares in the foreground for a free slot it will
	// take. live: the case holds a slot. awaiting: it waits for its model.
	// started: the worker has a case in flight (counted in cases).
	// handed: the slot the case left went straight to a prepared case.
	claimed, live, awaiting, started, handed bool
}

// Await waits for a slot (TurnLive) or for the moment to do background
// work (the other turns).
func (s *seat) Await(ctx context.Context, t pipeline.Turn) bool {
	if t == pipeline.TurnLive {
		return s.enterLive(ctx)
	}
	return s.background(ctx, t)
}

// Release gives back the slot (TurnLive), what the attempt holds
// (TurnFinish), or the case's place (TurnStart).
func (s *seat) Release(t pipeline.Turn) {
	switch t {
	case pipeline.TurnLive:
		s.leaveLive()
	case pipeline.TurnFinish:
		s.leave()
	case pipeline.TurnStart:
		s.end()
	}
}

// Waiting marks the live case as waiting for its model, or working again.
func (s *seat) Waiting(on bool) {
	p := s.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if !s.live || s.awaiting == on {
		return
	}
	s.awaiting = on
	if on {
		p.addBusy(-1)
	} else {
		p.addBusy(1)
	}
}

func (s *seat) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// background waits until the worker may do t (start, prepare or finish).
// A case preparing for a slot nobody else will use claims it and goes on
// in the foreground. A new case starts on such a slot only while fewer
// cases than slots are in flight: a run that is never quiet (CPU-bound)
// keeps to as many cases as slots, as without a pacer, and only quiet
// moments start the cases prepared ahead. It returns at once when ctx
// ends, and reports whether it waited.
func (s *seat) background(ctx context.Context, t pipeline.Turn) (waited bool) {
	p := s.p
	for ; ; waited = true {
		p.mu.Lock()
		if t == pipeline.TurnFinish && s.claimed {
			// The case failed before it went live: its claim goes to
			// another case.
			s.release()
		}
		pass, claim := false, false
		switch {
		case s.claimed, p.quiet, ctx.Err() != nil:
			pass = true
		case t == pipeline.TurnFinish && !s.handed:
			// Nobody took the slot the case left: its worker is the one
			// to fill it again, so finishing is on the way to the next
			// request.
			pass = true
		case p.need() > 0:
			switch t {
			case pipeline.TurnStart:
				pass, claim = p.cases < p.slots, true
			case pipeline.TurnPrepare:
				pass, claim = true, true
			default:
				pass = true
			}
		}
		if pass {
			if claim {
				s.claimed = true
				p.claims++
				p.addBusy(1)
			}
			if t == pipeline.TurnStart {
				s.started = true
				p.cases++
			}
			p.mu.Unlock()
			return waited
		}
		if t == pipeline.TurnStart {
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
func (s *seat) release() {
	p := s.p
	s.claimed = false
	p.claims--
	p.addBusy(-1)
	p.wakeNeed()
}

// enterLive waits for a slot. It returns at once when ctx ends, without
// one, and reports whether it waited.
func (s *seat) enterLive(ctx context.Context) (waited bool) {
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
func (s *seat) leaveLive() {
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
func (s *seat) leave() {
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
func (s *seat) end() {
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
