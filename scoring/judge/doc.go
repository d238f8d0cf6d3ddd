// Package judge scores murmur's llm_judge scorers with a model: for each
// case and scorer it asks the run's judge model whether the case's work
// meets the scorer's criteria, and reads back one verdict object
// {"score": 0..1, "reason": "..."}.
//
// What the judge sees is the task, the final answer, the trajectory (each
// turn's text, tool calls with their inputs and outputs) and the workspace
// diff, each bounded (prompt.go), inside DATA blocks whose marker is a
// digest of their content, so the agent's text cannot close a block and
// pose as instructions. The verdict is asked for as a forced tool call
// (structured output on both wire APIs); a text answer holding the object
// is read too. An answer that is no verdict gets one repair request; a
// second is a harness error (E-EVL-091), never a pass or a fail.
//
// The judge's calls go through the run's model client (connection bound,
// retries, Retry-After, no redirects) and can be recorded and replayed
// like model turns, keyed by the case and their order. Every exchange is
// appended to the session's logs/judge.jsonl.
package judge
