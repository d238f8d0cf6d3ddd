// Package component runs WebAssembly components (the component model's
// binary format, layer 1) on wazero, which runs only core modules.
//
// It reads a component (Decode), checks that it has the shape rustc's
// wasm32-wasip2 target and wit-component give murmur's tools, capsules,
// drivers and hooks (Compile, for a World), and runs its main core module
// with host functions that implement the WASI 0.2 and murmur interfaces
// directly at the core level, lowering and lifting the canonical ABI by
// hand (RunTool, RunCapsule, NewHookInstance). Everything else is refused
// at Compile with E-RUN-001 and a reason naming what is unsupported. See
// docs/components.md.
//
// The host is built in layers, each a package of its own with its tests:
//
//   - internal/binary decodes the binary format into its index spaces
//     (never panicking on hostile input) and checks the structure of
//     wit-component's shape whatever the world (canonical options, core
//     modules, the lift behind an export, types rendered as shapes);
//   - internal/abi is the canonical ABI: one call's Frame (bounds-checked
//     guest memory, strings and lists through cabi_realloc, the resource
//     table), values and their lowering, lifting, traps, and the host
//     function type;
//   - internal/wasi implements WASI 0.2 (cli, io, clocks, random,
//     filesystem, http) on a call's Host;
//   - this package is murmur's worlds: it checks a decoded component
//     against a world's exports, types and imports (validate.go,
//     hook_world.go), links the WASI and
//     murmur interfaces (host.go, murmur.go) into the main module, and
//     runs it per call with the engine's memory limiter
//     (sandbox/internal/memlimit, shared with preview-1 modules).
//
// Only these entry points and the values callers pass are public.
// Test fixtures are committed under testdata/wasm, built by
// scripts/component-fixtures.sh and read with componenttest.Fixture.
package component
