package main

import "unsafe"

// Go's wasmexport functions cannot run before the Go runtime is
// initialized, and the preview-1 adapter allocates its state through the
// main module's cabi_realloc during that initialization (the runtime's
// first clock read). So cabi_realloc is not Go: the test build appends a
// small wasm function to the module (inference/drivertest's patch) that
// bump-allocates from this array, found by the magic in its first 16
// bytes. Its third word is the bump offset (0: start at 32). Every list
// or string the host hands the guest lands here; the driver copies it out
// and rewinds the offset, so the arena only ever holds the adapter's
// state, the input, and one read at a time.

const arenaWords = 512 << 10 // 4 MiB

// nolint
var arena = [arenaWords]uint64{0x2d72756d72756d21, 0x616e6572612d6c61}

func arenaWord() *uint32 { return (*uint32)(unsafe.Pointer(&arena[2])) }

func arenaMark() uint32 { return *arenaWord() }

func arenaRelease(m uint32) { *arenaWord() = m }
