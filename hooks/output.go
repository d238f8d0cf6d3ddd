package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Output is a hook's answer to one event: murmur's hook-output variant.
// Arm names the variant; the field of that arm is set.
type Output struct {
	Arm       string          // ArmNone, ArmReplaceContext, ArmWriteManifests, ArmArtifact, ArmReopenTask
	Reason    string          // reopen-task: the feedback
	Messages  []Message       // replace-context
	Manifests []ToolManifest  // write-manifests
	Artifact  json.RawMessage // artifact: a JSON object
}

// ToolManifest is one entry of write-manifests.
type ToolManifest struct {
	BinaryName string `json:"binary_name"`
	Content    string `json:"content"`
}

// wireOutput is the JSON a hook prints (docs/hooks.md).
type wireOutput struct {
	Output    *string         `json:"output"`
	Error     *string         `json:"error"`
	Reason    *string         `json:"reason"`
	Messages  *[]Message      `json:"messages"`
	Manifests *[]ToolManifest `json:"manifests"`
	Artifact  json.RawMessage `json:"artifact"`
}

// HookError is a hook's own error answer ({"error": "..."}): murmur's Err.
type HookError struct{ Msg string }

func (e *HookError) Error() string { return e.Msg }

// ParseOutput decodes what a hook printed on stdout. Empty output (only
// white space) is none. {"error": "..."} is the hook's Err, returned as a
// *HookError. Anything else that is not one of the five arms, with the
// field its arm needs, is an error naming what is wrong. ParseOutput reads
// untrusted guest output: it never panics.
func ParseOutput(stdout []byte) (Output, error) {
	s := bytes.TrimSpace(stdout)
	if len(s) == 0 {
		return Output{Arm: ArmNone}, nil
	}
	var w wireOutput
	dec := json.NewDecoder(bytes.NewReader(s))
	if err := dec.Decode(&w); err != nil {
		return Output{}, fmt.Errorf("hook output is not a JSON object: %w", err)
	}
	if dec.More() {
		return Output{}, errors.New("hook output has more than one JSON value")
	}
	if w.Error != nil {
		return Output{}, &HookError{Msg: *w.Error}
	}
	if w.Output == nil {
		return Output{}, errors.New(`hook output has neither "output" nor "error"`)
	}
	out := Output{Arm: *w.Output}
	switch out.Arm {
	case ArmNone:
	case ArmReopenTask:
		if w.Reason == nil {
			return Output{}, errors.New(`hook output reopen-task has no "reason"`)
		}
		out.Reason = *w.Reason
	case ArmReplaceContext:
		if w.Messages == nil {
			return Output{}, errors.New(`hook output replace-context has no "messages"`)
		}
		out.Messages = *w.Messages
	case ArmWriteManifests:
		if w.Manifests == nil {
			return Output{}, errors.New(`hook output write-manifests has no "manifests"`)
		}
		out.Manifests = *w.Manifests
	case ArmArtifact:
		a := bytes.TrimSpace(w.Artifact)
		if len(a) == 0 || a[0] != '{' {
			return Output{}, errors.New(`hook output artifact needs an "artifact" JSON object`)
		}
		out.Artifact = json.RawMessage(a)
	default:
		return Output{}, fmt.Errorf("hook output %q is not one of: none, replace-context, write-manifests, artifact, reopen-task", out.Arm)
	}
	return out, nil
}
