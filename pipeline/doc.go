// Package pipeline is murmur-eval's vocabulary and executor: the stage graph
// (Stage, Node, Graph), the per-case state (Case) with the stages' typed
// results (Key, Store, ResultOf, Lookup), the outcome of each stage, the
// status of a finished case, and the bounded workers that run the graph
// across a dataset.
//
// Stages live in stages/<name>/ and import this package; this package imports
// no stage and no domain package (only errcode): each stage package declares
// the type of its result and its key, as go/analysis's analyzers do. cmd/
// murmur-eval wires the stage table. The executor, not the stages, does the
// observing and the checking: it times every stage, recovers panics,
// decides which stages are skipped, and holds each stage to its declared
// requirements and result.
package pipeline
