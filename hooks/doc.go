// Package hooks runs murmur's lifecycle hooks (murmur-session.md §4) as
// WASI preview 1 command modules: each lifecycle event is one fresh
// instance that reads the event as JSON on stdin and answers murmur's
// hook-output as JSON on stdout (docs/hooks.md has the exact ABI).
//
// A Set is built once per run from the capsule's hook artifacts (their
// modules compiled once, their binding, execution mode and commit policy
// read and checked from their own murmur.yaml). Each case opens its own
// Dispatcher from it, which the Loop stage calls at murmur's points:
// blocking hooks in manifest order filtered by binding, murmur's
// honoured-arm table and first-wins rule, non-fatal faults written to
// logs/hook-<name>.log and buffered as hook_dispatch_error events, and
// one worker per async hook.
package hooks
