package wasmcheck

import (
	"os"
	"testing"
)

// BenchmarkCheck walks the quickstart's notes tool, a 3.8 MB Go module:
// the check's cost per compiled tool (once per run).
func BenchmarkCheck(b *testing.B) {
	mod, err := os.ReadFile("../../../examples/quickstart/tools/notes/notes.wasm")
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(int64(len(mod)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Check(mod); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGuardTableGrowth reads the same module for table.grows (it has
// none): what Prepare's guard adds to each compiled tool, once per run.
func BenchmarkGuardTableGrowth(b *testing.B) {
	mod, err := os.ReadFile("../../../examples/quickstart/tools/notes/notes.wasm")
	if err != nil {
		b.Skip(err)
	}
	capped, err := CapTables(mod, MaxTableElements)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(capped)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := GuardTableGrowth(capped); err != nil {
			b.Fatal(err)
		}
	}
}
