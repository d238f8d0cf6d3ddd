// Command echo is a test tool: it reads murmur's ToolInput JSON on stdin and
// replies with a ToolResult whose data is the input's data.
package main

import (
	"encoding/json"
	"fmt"
	"os"
)

type toolInput struct {
	Data    *string `json:"data"`
	LogPath *string `json:"log_path"`
}

type toolResult struct {
	Status  string  `json:"status"`
	Summary string  `json:"summary"`
	Data    *string `json:"data,omitempty"`
}

func main() {
	var in toolInput
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, "echo: bad input:", err)
		os.Exit(1)
	}
	res := toolResult{Status: "passed", Summary: "echoed", Data: in.Data}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		os.Exit(1)
	}
}
