// Package transcript keeps the conversation of a case's session, which
// murmur's trace.jsonl leaves out: the task and system prompt each attempt
// started with, every model answer (its content blocks verbatim), every
// tool result the model was sent, and how the session ended. The Loop stage
// records it (Recorder), the Report stage writes it to the session's
// logs/transcript.jsonl (FileName), and `murmur-eval view` and
// `murmur-eval show --case` read it back (Read), bounded, as hostile input:
// a session folder is the tools' to write.
//
// One JSON object per line, each with a "kind": start (an attempt begins:
// model, system prompt, tool names, the task text), turn (one model
// answer, with the digest of the request it answered), tool_result (what a
// tool call returned to the model) and end (the session's exit status and
// final answer). Diverge compares two transcripts of one case turn by turn
// and names the first turn whose request or answer differs.
package transcript
