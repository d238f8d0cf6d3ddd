package component

import (
	"strings"
)

// World is the murmur world an artifact must implement: what it must
// export and which murmur interfaces it may import.
type World struct {
	Name    string
	Export  string   // the one exported interface, e.g. "murmur:tool/run@0.1.0"
	Imports []string // murmur interfaces it may import, versioned
}

// The worlds of murmur's runtime-guest package (murmur-session.md §8).
var (
	WorldTool   = World{Name: "tool", Export: "murmur:tool/run@0.1.0", Imports: []string{"murmur:task/task@0.1.0", "murmur:text/chunks@0.1.0"}}
	WorldDriver = World{Name: "driver", Export: "murmur:tool/run@0.1.0", Imports: []string{"murmur:text/chunks@0.1.0"}}
	// A capsule imports murmur:tool/run for the types tool-registry uses;
	// it has no functions for the host to provide.
	WorldCapsule = World{Name: "capsule", Export: "murmur:capsule/run@0.1.0", Imports: []string{"murmur:tool-registry/invoke@0.1.0", "murmur:tool/run@0.1.0"}}
)

// wasiInterfaces are the WASI 0.2 interfaces a component may import.
// Sockets are not among them.
var wasiInterfaces = map[string]bool{
	"wasi:cli/environment": true, "wasi:cli/exit": true, "wasi:cli/stdin": true, "wasi:cli/stdout": true,
	"wasi:cli/stderr": true, "wasi:cli/terminal-input": true, "wasi:cli/terminal-output": true,
	"wasi:cli/terminal-stdin": true, "wasi:cli/terminal-stdout": true, "wasi:cli/terminal-stderr": true,
	"wasi:io/error": true, "wasi:io/poll": true, "wasi:io/streams": true,
	"wasi:clocks/wall-clock": true, "wasi:clocks/monotonic-clock": true,
	"wasi:random/random": true, "wasi:random/insecure": true, "wasi:random/insecure-seed": true,
	"wasi:filesystem/types": true, "wasi:filesystem/preopens": true,
	"wasi:http/types": true, "wasi:http/outgoing-handler": true,
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
		if !wasiInterfaces[base] {
			return "import " + name + " is not a WASI interface this host provides", false
		}
		return "", true
	}
	for _, m := range w.Imports {
		if m == name {
			return "", true
		}
	}
	return "import " + name + " is not part of murmur's " + w.Name + " world", false
}
