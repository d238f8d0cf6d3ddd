// Command hang is a tool that never answers: it reads its stdin as every
// murmur tool does, then spins forever. Build it as a WASI command module:
//
//	GOOS=wasip1 GOARCH=wasm go build -o hang.wasm .
package main

import (
	"io"
	"os"
)

func main() {
	_, _ = io.ReadAll(os.Stdin)
	for {
	}
}
