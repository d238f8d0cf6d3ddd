// Command calc is the quickstart capsule's arithmetic tool.
//
// It speaks murmur's native-tool protocol over WASI stdio: stdin holds one
// JSON object {"data": "<the model's input as a JSON string>", "log_path": null}
// and stdout gets one JSON object {"status": "passed"|"failed"|"error",
// "summary": "...", "data": "..."}. The model's input is
// {"expression": "(2+3)*4"}; the result is the value as text.
//
// Build it as a WASI command module:
//
//	GOOS=wasip1 GOARCH=wasm go build -o calc.wasm .
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

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
	res := toolResult{Status: "error", Summary: fmt.Sprintf("calc: cannot read stdin: %v", err)}
	if err == nil {
		res = serve(stdin)
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		os.Exit(1)
	}
}

// serve answers one tool call: stdin in, result out.
func serve(stdin []byte) toolResult {
	var in toolInput
	if err := json.Unmarshal(stdin, &in); err != nil {
		return toolResult{Status: "error", Summary: "calc: stdin is not a murmur tool input: " + err.Error()}
	}
	var args struct {
		Expression *string `json:"expression"`
	}
	if in.Data == nil || json.Unmarshal([]byte(*in.Data), &args) != nil || args.Expression == nil {
		return failed(`input must be a JSON object with a string "expression", e.g. {"expression": "6*7"}`)
	}
	v, err := Eval(*args.Expression)
	if err != nil {
		return failed(err.Error())
	}
	text := Format(v)
	return toolResult{Status: "passed", Summary: fmt.Sprintf("%s = %s", *args.Expression, text), Data: text}
}

func failed(reason string) toolResult {
	return toolResult{Status: "failed", Summary: "calc: " + reason, Data: reason}
}
