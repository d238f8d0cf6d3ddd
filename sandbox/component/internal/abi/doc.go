// Package abi is the component host's canonical ABI layer: one call's
// view of a guest instance (Frame: bounds-checked memory access, strings
// and lists allocated through the guest's cabi_realloc, the resource
// table), the lifting of strings and options from guest memory, traps,
// and the host function type the WASI and murmur layers are written in.
// It knows no interface: sandbox/component/internal/wasi and
// sandbox/component build theirs on it.
package abi
