package sandbox

import "github.com/tetratelabs/wazero"

// Runtime returns the engine's wazero runtime (WithCloseOnContextDone, the
// run's compilation cache) for the component host (sandbox/component),
// which compiles a component's core modules with it so that components and
// preview-1 modules share one runtime and one cache. It is released by
// Close.
func (e *Engine) Runtime() wazero.Runtime { return e.rt }

// MemoryLimitBytes is the per-instance memory cap the engine enforces
// (capabilities.limits.memory_bytes), 0 for none: a component call gets
// the same.
func (e *Engine) MemoryLimitBytes() uint64 { return e.memLimit }

// MaxOutputBytes is how much of each of stdout and stderr a call keeps.
func (e *Engine) MaxOutputBytes() int { return e.maxOutput }

// IsComponent reports whether wasm opens with a component's preamble
// (layer 1) rather than a core module's.
func IsComponent(wasm []byte) bool {
	return len(wasm) >= 8 && string(wasm[:4]) == wasmMagic && wasm[6] == 1 && wasm[7] == 0
}

// TableElements is the most elements a table of a module the engine
// compiles may hold (Config.TableElements; 0 for murmur's default), for
// components compiled with its runtime.
func (e *Engine) TableElements() uint32 { return e.tables }

// Instances is the most core instances a component the engine's caller
// compiles may make in one call (Config.Instances; 0 for murmur's
// default), for component.WithInstances.
func (e *Engine) Instances() uint64 { return e.insts }
