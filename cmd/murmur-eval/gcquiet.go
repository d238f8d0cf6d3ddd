package main

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
)

// quietCollector collects garbage in a run's quiet moments, when every
// session waits for its model (pacing.NewAdaptive's onQuiet), if the heap is
// more than half-way from its live size to the size at which the runtime
// would start a collection anyway. A collection that starts on its own
// while a wave of answers comes in takes a core from their transitions
// (BENCHMARKS.md, issue 19, session 10).
type quietCollector struct {
	running atomic.Bool
}

func (q *quietCollector) maybeCollect() {
	if !q.running.CompareAndSwap(false, true) {
		return
	}
	defer q.running.Store(false)
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/heap/goal:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	for _, x := range s {
		if x.Value.Kind() != metrics.KindUint64 {
			return
		}
	}
	live, goal, now := s[0].Value.Uint64(), s[1].Value.Uint64(), s[2].Value.Uint64()
	if goal > live && now > live+(goal-live)/2 {
		runtime.GC()
	}
}
