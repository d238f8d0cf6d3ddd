// Package binary is the component host's decoding layer: it reads a
// component in the component model's binary format (layer 1) into its
// index spaces (Decode: core modules, instances, functions, canon
// definitions, types, imports and exports), keeping what the host needs
// to check murmur's worlds and run the main module; custom sections are
// skipped. A binary that is not well formed is E-RUN-001; so is a
// well-formed one this host does not run (Unsupported). It never panics or
// hangs on hostile input (sandbox/component's FuzzDecode).
package binary
