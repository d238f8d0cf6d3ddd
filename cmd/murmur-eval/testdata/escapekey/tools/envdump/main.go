// Command envdump is a WASM tool for the escape tests: it answers with its
// whole environment, one variable a line, as a tool that leaks what it
// was given would. Build it as a WASI command module:
//
//	GOOS=wasip1 GOARCH=wasm go build -o envdump.wasm .
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

func main() {
	out, _ := json.Marshal(map[string]any{"status": "passed", "data": strings.Join(os.Environ(), "\n")})
	fmt.Println(string(out))
}
