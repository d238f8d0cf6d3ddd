// Command addrealloc gives inference/drivertest's Go driver fixture its
// cabi_realloc (drivertest.AddRealloc) for scripts/component-fixtures.sh:
//
//	go run ./scripts/addrealloc core.wasm out.wasm
package main

import (
	"fmt"
	"os"

	"github.com/murmur-nexus/murmur-eval/inference/drivertest"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "addrealloc:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: addrealloc core.wasm out.wasm")
	}
	core, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	patched, err := drivertest.AddRealloc(core)
	if err != nil {
		return fmt.Errorf("%s: %w", args[0], err)
	}
	return os.WriteFile(args[1], patched, 0o644)
}
