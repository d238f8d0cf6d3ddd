// Package view writes `murmur-eval view`'s static site over a finished run:
// index.html, every case in one compact row (filterable and sortable by a
// small inline script), and a page per case under cases/ with what its
// session folder holds (the task, each turn, the tool calls with their
// inputs and outputs, hook and denial events, the final answer, every
// score with its reason, the workspace diff, timings, tokens and cost)
// and links to the raw files. Given a baseline run, a case whose verdict
// flipped shows both transcripts turn by turn, the first divergent turn
// marked (transcript.Diverge).
//
// Everything a page shows from a model, a tool or a dataset is hostile
// input: it goes through html/template's escaping, control characters and
// bidi overrides are made visible (clean), long texts are folded and cut
// (budget), and each page's Content-Security-Policy allows no script but
// the index's own, by its hash. The site works from file:// with nothing
// fetched.
package view
