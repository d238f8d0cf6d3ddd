// Package pipeline is murmur-eval's vocabulary and executor: the stage graph
// (Stage, Node, Graph), the per-case state that stages fill in (Case), the
// outcome of each stage, the status of a finished case, and the bounded
// workers that run the graph across a dataset.
//
// Stages live in stages/<name>/ and import this package; this package imports
// no stage. cmd/murmur-eval wires the stage table. The executor, not the
// stages, does the observing: it times every stage, recovers panics, and
// decides which stages are skipped.
package pipeline
