package capsule

import (
	"gopkg.in/yaml.v3"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Context is the manifest's context block (§1.6).
type Context struct {
	// MaxTokens is the session token budget that enables compaction; 0 when
	// absent (no compaction). Independent of inference.max_tokens.
	MaxTokens uint32
}

// Trace is the manifest's trace block (§1.8).
type Trace struct {
	IncludeToolOutput bool // raw tool output in each trace tool_call event
}

// Network is the manifest's top-level network block (§1.9).
type Network struct {
	// InternalPort is the port the capsule's HTTP/A2A server binds; 0 (also
	// when absent) lets the OS pick one.
	InternalPort uint16
}

// TaskAcceptance says which tasks a session takes.
type TaskAcceptance string

// AfterTask says what a session does once its task is done.
type AfterTask string

// Conversation says whether tasks sharing a context id share history.
type Conversation string

// The lifecycle values (§1.9); the defaults are single, exit and stateless.
const (
	TaskAcceptanceNone   TaskAcceptance = "none"
	TaskAcceptanceSingle TaskAcceptance = "single"
	TaskAcceptanceQueue  TaskAcceptance = "queue"

	AfterTaskExit  AfterTask = "exit"
	AfterTaskSleep AfterTask = "sleep"

	ConversationStateless Conversation = "stateless"
	ConversationThreaded  Conversation = "threaded"
)

// Lifecycle is the manifest's lifecycle block (§1.9) with defaults applied;
// an absent block is all defaults.
type Lifecycle struct {
	TaskAcceptance TaskAcceptance // default single
	AfterTask      AfterTask      // default exit
	QueueDepth     uint64         // default 1, not validated
	// InputTimeoutSecs bounds the wait for a request-input reply; nil (the
	// default) waits forever.
	InputTimeoutSecs *uint64
	Conversation     Conversation // default stateless
}

func defaultLifecycle() Lifecycle {
	return Lifecycle{TaskAcceptance: TaskAcceptanceSingle, AfterTask: AfterTaskExit, QueueDepth: 1, Conversation: ConversationStateless}
}

// rawBlocks holds the small top-level blocks, decoded.
type rawBlocks struct {
	contextMaxTokens optUint
	includeToolOut   optBool
	internalPort     optUint
	lifecycle        *rawLifecycle
	observability    *rawObservability
}

type rawLifecycle struct {
	taskAcceptance, afterTask, conversation scalar
	queueDepth, inputTimeout                optUint
}

func decodeBlocks(errs *fieldErrs, m *mapping) rawBlocks {
	var b rawBlocks
	if c := errs.child(m, "context"); c != nil {
		b.contextMaxTokens = errs.uint(c, "max_tokens", 32, "u32")
	}
	b.observability = decodeObservability(errs, m)
	if t := errs.child(m, "trace"); t != nil {
		b.includeToolOut = errs.boolean(t, "include_tool_output")
	}
	if n := errs.child(m, "network"); n != nil {
		b.internalPort = errs.uint(n, "internal_port", 16, "u16")
	}
	if l := errs.child(m, "lifecycle"); l != nil {
		b.lifecycle = &rawLifecycle{
			taskAcceptance: errs.variant(l, "task_acceptance", "none", "single", "queue"),
			afterTask:      errs.variant(l, "after_task", "exit", "sleep"),
			queueDepth:     errs.uint(l, "queue_depth", 64, "usize"),
			inputTimeout:   errs.uint(l, "input_timeout_secs", 64, "u64"),
			conversation:   errs.variant(l, "conversation", "stateless", "threaded"),
		}
	}
	return b
}

// lowerBlocks fills man's context, observability, trace, network and
// lifecycle. Only context.max_tokens has a rule beyond its type.
func lowerBlocks(d *decoder, b rawBlocks, man *Manifest) error {
	if n := b.contextMaxTokens.node; n != nil {
		if b.contextMaxTokens.val == 0 {
			return errcode.New(errcode.ManifestInvalid,
				"invalid inference config for 'context.max_tokens': must be greater than 0").At(d.where(n))
		}
		man.Context.MaxTokens = uint32(b.contextMaxTokens.val)
	}
	man.Observability = lowerObservability(d, b.observability)
	if err := checkThresholds(d, b.observability); err != nil {
		return err
	}
	man.Trace.IncludeToolOutput = b.includeToolOut.val
	man.Network.InternalPort = uint16(b.internalPort.val)
	man.Lifecycle = defaultLifecycle()
	if l := b.lifecycle; l != nil {
		setIf(&man.Lifecycle.TaskAcceptance, l.taskAcceptance.node, TaskAcceptance(l.taskAcceptance.text))
		setIf(&man.Lifecycle.AfterTask, l.afterTask.node, AfterTask(l.afterTask.text))
		setIf(&man.Lifecycle.Conversation, l.conversation.node, Conversation(l.conversation.text))
		setIf(&man.Lifecycle.QueueDepth, l.queueDepth.node, l.queueDepth.val)
		man.at.afterTask = d.where(orNode(l.afterTask.node, l.taskAcceptance.node))
		if l.inputTimeout.node != nil {
			v := l.inputTimeout.val
			man.Lifecycle.InputTimeoutSecs = &v
		}
	}
	return nil
}

// setIf sets *dst to v when the field was written (n is its node).
func setIf[T any](dst *T, n *yaml.Node, v T) {
	if n != nil {
		*dst = v
	}
}
