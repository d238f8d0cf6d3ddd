// Package scoring computes a case's scores once its session has ended.
//
// Two kinds of scorer exist. murmur's built-in scorers (exit_ok, max_turns,
// max_tokens, tool_sequence) come from the capsule manifest's
// observability.eval.scorers and are computed from the case's trace with the
// semantics of murmur-hook-eval (murmur-session.md §5.2), no hook needed.
// Expected-output scorers come from the dataset line's "expected" field,
// which murmur leaves unused: the final answer, files the agent wrote, and a
// check command run in the session folder (docs/expected.md).
//
// Every scorer yields a Score: a name, a pass or fail, a value in [0, 1] and
// a reason. The scores of a case are written to its session's eval.jsonl in
// murmur's record format, so `mur eval show` reads them.
//
// The package knows nothing of the pipeline: it reads traces, files and
// JSON, and runs the check command, so each scorer is tested on its own.
package scoring
