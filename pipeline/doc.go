// Package pipeline is murmur-eval's vocabulary and executor: the stage graph
// (Stage, Decl, Node, Graph), the per-case state (Case) with the stages' typed
// results (Key, Store, ResultOf, Lookup), the outcome of each stage, the
// status of a finished case, and the bounded workers that run the graph
// across a dataset.
//
// Stages live in stages/<name>/ and import this package; this package imports
// no stage and no domain package (only errcode): each stage package declares
// itself (Decl: its name, the type of its result and its key, its
// requirements), as go/analysis's analyzers do, and package stages wires
// the table. The executor, not the stages, does the observing and the
// checking: it times every stage, recovers panics, decides which stages
// are skipped, holds each stage to its declared requirements and result,
// and closes the results that hold something open (Closer).
package pipeline
