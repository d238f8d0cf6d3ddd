// Package component runs WebAssembly components (the component model's
// binary format, layer 1) on wazero, which runs only core modules.
//
// It reads a component (Decode), checks that it has the shape rustc's
// wasm32-wasip2 target and wit-component give murmur's tools, capsules and
// drivers (Compile), and runs its main core module with host functions that
// implement the WASI 0.2 and murmur interfaces directly at the core level,
// lowering and lifting the canonical ABI by hand (RunTool, RunCapsule).
// Everything else is refused at Compile with E-RUN-001 and a reason naming
// what is unsupported. See docs/components.md.
package component
