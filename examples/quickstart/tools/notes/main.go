// Command notes is the quickstart capsule's note-taking tool: it writes,
// reads and lists text files under notes/ in the case's session directory.
//
// It speaks murmur's native-tool protocol over WASI stdio, like calc: stdin
// {"data": "<the model's input as a JSON string>", "log_path": null}, stdout
// {"status": "passed"|"failed"|"error", "summary": "...", "data": "..."}.
// The model's input is {"action": "write"|"read"|"list", "path": "todo.md",
// "content": "..."}. The sandbox mounts the session directory as the guest's
// "/", so notes land in <session>/notes/ and each case sees only its own.
//
// Build it as a WASI command module:
//
//	GOOS=wasip1 GOARCH=wasm go build -o notes.wasm .
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// notesDir is where notes live inside the guest: <session>/notes on the host.
const notesDir = "/notes"

// toolInput is what murmur writes to a tool's stdin.
type toolInput struct {
	Data    *string `json:"data"`
	LogPath *string `json:"log_path"`
}

// toolResult is what a tool writes to stdout. The model sees data, or summary
// when data is empty; any status but "passed" is an error to the model.
type toolResult struct {
	Status  string `json:"status"`
	Summary string `json:"summary,omitempty"`
	Data    string `json:"data,omitempty"`
}

func main() {
	stdin, err := io.ReadAll(os.Stdin)
	res := toolResult{Status: "error", Summary: fmt.Sprintf("notes: cannot read stdin: %v", err)}
	if err == nil {
		res = serve(stdin, notesDir)
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		os.Exit(1)
	}
}

// request is the model's input.
type request struct {
	Action  string  `json:"action"`
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

// serve answers one tool call, keeping notes in dir.
func serve(stdin []byte, dir string) toolResult {
	var in toolInput
	if err := json.Unmarshal(stdin, &in); err != nil {
		return toolResult{Status: "error", Summary: "notes: stdin is not a murmur tool input: " + err.Error()}
	}
	var req request
	if in.Data == nil || json.Unmarshal([]byte(*in.Data), &req) != nil {
		return failed(`input must be a JSON object such as {"action": "write", "path": "todo.md", "content": "..."}`)
	}
	switch req.Action {
	case "write":
		return write(dir, req)
	case "read":
		return read(dir, req)
	case "list":
		return list(dir)
	}
	return failed(fmt.Sprintf(`unknown action %q; use "write", "read" or "list"`, req.Action))
}

func failed(reason string) toolResult {
	return toolResult{Status: "failed", Summary: "notes: " + reason, Data: reason}
}

func broken(err error) toolResult {
	return toolResult{Status: "error", Summary: "notes: " + err.Error(), Data: err.Error()}
}
