package component

import (
	"strings"

	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/wasi"
)

// World is the murmur world an artifact must implement: what it must
// export and which murmur interfaces it may import (murmur-session.md §8).
type World int

const (
	// WorldTool is murmur:runtime-guest's tool world.
	WorldTool World = iota
	// WorldDriver is the driver world: a tool that may not ask for input.
	WorldDriver
	// WorldCapsule is the script capsule world.
	WorldCapsule
	// WorldHook is murmur:runtime/hook@0.2.0's hook world: it exports
	// murmur:hook/lifecycle@0.5.0 and may import
	// murmur:runtime/inference@0.2.0.
	WorldHook
)

// name is the world's name in murmur's WIT.
func (w World) name() string {
	switch w {
	case WorldTool:
		return "tool"
	case WorldDriver:
		return "driver"
	case WorldCapsule:
		return "capsule"
	case WorldHook:
		return "hook"
	}
	return "unknown"
}

// export is the one interface the world exports.
func (w World) export() string {
	switch w {
	case WorldCapsule:
		return "murmur:capsule/run@0.1.0"
	case WorldHook:
		return hookInterface
	}
	return "murmur:tool/run@0.1.0"
}

// hookInterface is the one lifecycle interface version murmur accepts.
const hookInterface = "murmur:hook/lifecycle@0.5.0"

// imports are the murmur interfaces the world may import, versioned. A
// capsule imports murmur:tool/run for the types tool-registry uses; it has
// no functions for the host to provide.
func (w World) imports() []string {
	switch w {
	case WorldTool:
		return []string{"murmur:task/task@0.1.0", "murmur:text/chunks@0.1.0"}
	case WorldDriver:
		return []string{"murmur:text/chunks@0.1.0"}
	case WorldCapsule:
		return []string{"murmur:tool-registry/invoke@0.1.0", "murmur:tool/run@0.1.0"}
	case WorldHook:
		// inference uses lifecycle's message record, so a hook imports
		// lifecycle for its types too (no functions).
		return []string{"murmur:runtime/inference@0.2.0", hookInterface}
	}
	return nil
}

// allowedImport says whether an instance import name is one this world may
// use, and if not, why.
func (w World) allowedImport(name string) (string, bool) {
	base, version, ok := strings.Cut(name, "@")
	if !ok {
		return "import " + name + " has no version", false
	}
	if strings.HasPrefix(base, "wasi:") {
		if !strings.HasPrefix(version, "0.2.") {
			return "import " + name + ": only WASI 0.2.x is supported", false
		}
		if strings.HasPrefix(base, "wasi:sockets/") {
			return "import " + name + ": sockets are not available to components", false
		}
		if !wasi.Provides(base) {
			return "import " + name + " is not a WASI interface this host provides", false
		}
		return "", true
	}
	for _, m := range w.imports() {
		if m == name {
			return "", true
		}
	}
	return "import " + name + " is not part of murmur's " + w.name() + " world", false
}
