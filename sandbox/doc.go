// Package sandbox runs murmur tools — WebAssembly command modules built for
// WASI preview 1 — with wazero, and turns what they print into murmur's
// ToolResult.
//
// A run creates one Engine, compiles each tool once with Engine.Compile and
// shares the resulting *Module across all cases and goroutines; every call to
// Engine.Run instantiates the module afresh, so no guest state survives from
// one call to the next (murmur does the same). A call sees exactly one host
// directory, mounted as "/", exactly the environment it is given, and real
// clocks and randomness; it never sees the host environment. Besides WASI
// preview 1, a guest may import the HostModule functions (hostcall.go),
// which answer only calls given a HostCalls (hooks' run-inference).
//
// Only this package interprets wazero's exit errors and traps. Run reports a
// guest that calls proc_exit(n) as Output.ExitCode = n, not as an error; a
// trap, the tool's own deadline and the memory limit come back as
// *errcode.Error with code E-RUN-001, distinguishable with errors.Is and
// ErrTrap, ErrDeadline and ErrMemory; the caller's context ending comes back
// as an error wrapping ctx.Err().
//
// ParseToolResult applies murmur's native-tool result rules to an Output,
// and CredentialLike and FilterEnv reproduce murmur's guest environment
// hygiene. All three are pure functions.
package sandbox
