// Command murmur-tool-editor is a test stand-in for murmur's editor tool, which is a WebAssembly
// component murmur-eval cannot run yet (issue 15): a WASI preview 1 module that answers
// {"command": "view", "path": "..."} with the file's text, so the scorers of murmur's eval
// how-to can be run on a real tool call today. It is not murmur's editor (no edits, murmur's
// output format is not copied); the how-to test builds it and packs it under the same name.
package main

import (
	"encoding/json"
	"io"
	"os"
	"path"
	"strings"
)

type toolInput struct {
	Data *string `json:"data"`
}

type toolResult struct {
	Status  string `json:"status"`
	Summary string `json:"summary,omitempty"`
	Data    string `json:"data,omitempty"`
}

type request struct {
	Command string `json:"command"`
	Path    string `json:"path"`
}

func main() {
	res := serve(os.Stdin)
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		os.Exit(1)
	}
}

func serve(r io.Reader) toolResult {
	raw, err := io.ReadAll(r)
	if err != nil {
		return toolResult{Status: "error", Summary: "editor: cannot read stdin: " + err.Error()}
	}
	var in toolInput
	var req request
	if json.Unmarshal(raw, &in) != nil || in.Data == nil || json.Unmarshal([]byte(*in.Data), &req) != nil {
		return toolResult{Status: "failed", Summary: `editor: input must be {"command": "view", "path": "..."}`}
	}
	if req.Command != "view" {
		return toolResult{Status: "failed", Summary: "editor: only view is supported"}
	}
	p := path.Clean("/" + strings.TrimPrefix(req.Path, "./"))
	data, err := os.ReadFile(p)
	if err != nil {
		return toolResult{Status: "failed", Summary: "editor: " + err.Error()}
	}
	return toolResult{Status: "passed", Data: string(data)}
}
