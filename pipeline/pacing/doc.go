// Package pacing has the runner's pacers (pipeline.Pacer): when a run's
// cases start, prepare, go into the graph's live stage (Loop: the session
// talking to its model) and finish.
//
// Semaphore lets at most Workers cases be live and does nothing else: the
// runner's Workers workers each run a case's stages straight through.
// Adaptive (the default of murmur-eval run, --pacing) also prepares cases
// ahead of the slots and finishes cases in the run's quiet moments, so a
// model's answer is followed by the next request before any bookkeeping
// (RATIONALE.md, "Why does the runner prepare cases ahead and finish them
// in quiet moments?"; BENCHMARKS.md has both measured).
//
// The Loop stage knows only pipeline.Wait: it marks when its case waits
// for the model, and a pacer may use that or ignore it.
package pacing
