// Command fileop is a WASM tool for the escape tests: it reads and writes
// the paths its input names, as a model-controlled tool would, and prints
// what happened to each. Build it as a WASI command module:
//
//	GOOS=wasip1 GOARCH=wasm go build -o fileop.wasm .
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

type input struct {
	Read  []string `json:"read"`
	Write []string `json:"write"`
	List  []string `json:"list"`
}

func main() {
	// murmur's tool protocol: {"data": "<the model's input as a JSON string>"}.
	var wrapped struct {
		Data string `json:"data"`
	}
	var in input
	if json.NewDecoder(os.Stdin).Decode(&wrapped) != nil || json.Unmarshal([]byte(wrapped.Data), &in) != nil {
		fmt.Println(`{"status":"error","summary":"bad input"}`)
		return
	}
	var lines []string
	for _, p := range in.Read {
		b, err := os.ReadFile(p)
		if err != nil {
			lines = append(lines, fmt.Sprintf("read %s: error: %v", p, err))
			continue
		}
		lines = append(lines, fmt.Sprintf("read %s: ok: %q", p, b))
	}
	for _, p := range in.Write {
		err := os.WriteFile(p, []byte("written by fileop\n"), 0o644)
		lines = append(lines, fmt.Sprintf("write %s: %v", p, err))
	}
	for _, p := range in.List {
		des, err := os.ReadDir(p)
		var names []string
		for _, de := range des {
			names = append(names, de.Name())
		}
		lines = append(lines, fmt.Sprintf("list %s: %v %v", p, names, err))
	}
	out, _ := json.Marshal(map[string]any{"status": "passed", "data": strings.Join(lines, "\n")})
	fmt.Println(string(out))
}
