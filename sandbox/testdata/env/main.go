// Command env is a test tool that prints its environment and arguments as
// JSON: {"env": [...], "args": [...]}.
package main

import (
	"encoding/json"
	"os"
)

func main() {
	json.NewEncoder(os.Stdout).Encode(map[string][]string{"env": os.Environ(), "args": os.Args})
}
