package hooks

import (
	"context"
	"fmt"

	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
)

// job is one event queued for an async hook; ev holds the payload as it
// was encoded when the event was enqueued.
type job struct {
	event, honoured string
	ev              *encoded
}

// worker is an async hook's queue and goroutine within one case: calls are
// made one at a time, in order; answers are discarded.
type worker struct {
	q      chan job
	done   chan struct{}
	cancel context.CancelFunc
}

// enqueue queues an event for an async hook, starting its worker on first
// use. A full queue drops the event (on_overflow: drop, a queue-overflow
// fault) or waits for room (block). The error is ctx ending while blocked.
func (d *Dispatcher) enqueue(ctx context.Context, h *Hook, j job) error {
	w := d.worker(ctx, h)
	select {
	case w.q <- j:
		return nil
	default:
	}
	if h.Overflow == capsule.OverflowBlock {
		select {
		case w.q <- j:
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	d.mu.Lock()
	if d.dropped == nil {
		d.dropped = map[string]int{}
	}
	d.dropped[h.Name]++
	d.faults = append(d.faults, Fault{Hook: h.Name, Event: j.event, Arm: "queue-overflow"})
	d.mu.Unlock()
	return nil
}

func (d *Dispatcher) worker(ctx context.Context, h *Hook) *worker {
	if w, ok := d.workers[h]; ok {
		return w
	}
	if d.workers == nil {
		d.workers = map[*Hook]*worker{}
	}
	wctx, cancel := context.WithCancel(ctx)
	w := &worker{q: make(chan job, d.set.queueDepth), done: make(chan struct{}), cancel: cancel}
	d.workers[h] = w
	go func() {
		defer close(w.done)
		for {
			select {
			case j, ok := <-w.q:
				if !ok {
					return
				}
				d.runAsync(wctx, h, j)
			case <-wctx.Done():
				return
			}
		}
	}()
	return w
}

// runAsync makes one async call. A hook's Err becomes an "error" fault, an
// arm other than none or the event's honoured one an unsupported-arm
// fault; either way the answer is discarded.
func (d *Dispatcher) runAsync(ctx context.Context, h *Hook, j job) {
	out, err := d.call(ctx, h, j.ev, d.env)
	if ctx.Err() != nil {
		return // cut short by the drain or the case's end: the drain reports it
	}
	if err != nil {
		d.log(h, j.event, "error: "+err.Error())
		d.fault(Fault{Hook: h.Name, Event: j.event, Arm: "error"})
		return
	}
	if out.Arm != ArmNone && out.Arm != j.honoured {
		d.unsupported(h, j.event, out.Arm)
	}
}

// drain closes every async queue and waits for the workers within one
// shared DrainTimeout (less when ctx ends first); a worker still busy then
// is cancelled and gets a drain timeout fault. Dropped events are summed
// up in the hook's log.
func (d *Dispatcher) drain(ctx context.Context) {
	if len(d.workers) == 0 {
		return
	}
	for _, w := range d.workers {
		close(w.q)
	}
	timer := time.NewTimer(DrainTimeout)
	defer timer.Stop()
	expired := false
	for _, h := range d.set.hooks {
		w, ok := d.workers[h]
		if !ok {
			continue
		}
		if !expired {
			select {
			case <-w.done:
			case <-timer.C:
				expired = true
			case <-ctx.Done():
				expired = true
			}
		}
		select {
		case <-w.done:
		default:
			w.cancel()
			<-w.done
			d.log(h, "drain", fmt.Sprintf("queue not drained within %s; remaining events dropped", DrainTimeout))
			d.fault(Fault{Hook: h.Name, Event: "drain", Arm: "timeout"})
		}
		w.cancel()
		d.mu.Lock()
		n := d.dropped[h.Name]
		d.mu.Unlock()
		if n > 0 {
			d.log(h, "drain", fmt.Sprintf("%d events dropped on queue overflow (on_overflow: drop)", n))
		}
	}
}
