package hooks

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// Event names: the lifecycle functions of murmur's hook interface, which
// are also the binding values of a hook's own manifest.
const (
	OnStage        = "on-stage"
	OnSessionStart = "on-session-start"
	OnTaskStart    = "on-task-start"
	OnInference    = "on-inference"
	OnToolCall     = "on-tool-call"
	OnShell        = "on-shell"
	OnCompaction   = "on-compaction"
	OnTaskEnd      = "on-task-end"
	OnSessionEnd   = "on-session-end"
)

// Bindings returns the binding values in murmur's order.
func Bindings() []string {
	return []string{OnStage, OnSessionStart, OnTaskStart, OnInference, OnToolCall, OnShell, OnCompaction, OnTaskEnd, OnSessionEnd}
}

// Execution modes.
const (
	Blocking = "blocking"
	Async    = "async"
)

// Hook outputs (murmur's hook-output variant), which are also the commit
// policies a hook may declare (none and the three committing ones).
const (
	ArmNone           = "none"
	ArmReplaceContext = "replace-context"
	ArmWriteManifests = "write-manifests"
	ArmArtifact       = "artifact"
	ArmReopenTask     = "reopen-task"
)

// Contract is what a hook's own murmur.yaml declares (murmur-formats.md
// §3.4), with murmur's defaults applied.
type Contract struct {
	Binding string // "" when absent: every event
	Mode    string // Blocking (default) or Async
	Policy  string // ArmNone (default), ArmWriteManifests, ArmReplaceContext, ArmReopenTask
}

// honoured is the one committing policy a specific binding accepts.
var honoured = map[string]string{ //nolint:gochecknoglobals // read-only table of the arm each binding honours
	OnStage:      ArmWriteManifests,
	OnCompaction: ArmReplaceContext,
	OnTaskEnd:    ArmReopenTask,
}

// ParseContract reads binding, execution_mode and commit_policy from a hook
// artifact's manifest text and checks them as murmur's staging does. A
// value that is not a string takes the default, as in murmur. The error
// text is murmur's message, without its "hook <name>@<ver> invalid config: "
// prefix, which the caller adds.
func ParseContract(manifest []byte) (Contract, string) {
	var doc map[string]any
	_ = yaml.Unmarshal(manifest, &doc) // the archive reader already parsed it
	str := func(key string) (string, bool) {
		s, ok := doc[key].(string)
		return s, ok
	}
	c := Contract{Mode: Blocking, Policy: ArmNone}
	if s, ok := str("binding"); ok {
		if !contains(Bindings(), s) {
			return c, "unknown binding '" + s + "'; expected: " + strings.Join(Bindings(), ", ")
		}
		c.Binding = s
	}
	if s, ok := str("execution_mode"); ok {
		if s != Blocking && s != Async {
			return c, "unknown execution_mode '" + s + "'; expected: blocking, async"
		}
		c.Mode = s
	}
	if s, ok := str("commit_policy"); ok {
		policies := []string{ArmNone, ArmWriteManifests, ArmReplaceContext, ArmReopenTask}
		if !contains(policies, s) {
			return c, "unknown commit_policy '" + s + "'; expected: " + strings.Join(policies, ", ")
		}
		c.Policy = s
	}
	if c.Mode == Async && c.Policy != ArmNone {
		return c, "async-with-commit not supported: execution_mode 'async' requires commit_policy 'none' (got '" + c.Policy + "')"
	}
	if c.Mode == Async && c.Binding == OnStage {
		return c, "binding 'on-stage' requires execution_mode 'blocking'"
	}
	if c.Binding != "" && c.Policy != ArmNone && honoured[c.Binding] != c.Policy {
		msg := "commit_policy '" + c.Policy + "' is not valid for binding '" + c.Binding + "'; "
		if h, ok := honoured[c.Binding]; ok {
			return c, msg + "binding '" + c.Binding + "' honors commit_policy '" + h + "'"
		}
		return c, msg + "binding '" + c.Binding + "' honors commit_policy 'none' only"
	}
	return c, ""
}

// Bound reports whether the hook receives event: its binding, or every
// event when it has none.
func (c Contract) Bound(event string) bool { return c.Binding == "" || c.Binding == event }

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
