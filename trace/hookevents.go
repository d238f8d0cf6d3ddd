package trace

// Event types of murmur's reopen loop, compaction and hooks
// (murmur-session.md §3).
const (
	TypeTaskReopened      = "task_reopened"
	TypeCompaction        = "compaction"
	TypeHookDispatchError = "hook_dispatch_error"
)

// TaskReopened is written between two attempts of a task that an
// on-task-end hook reopened.
type TaskReopened struct {
	TaskID       string `json:"task_id"`
	HookName     string `json:"hook_name"`
	Reason       string `json:"reason"`
	ReopenNumber int    `json:"reopen_number"` // 1-based
}

// Compaction is written when an on-compaction hook's replacement of the
// conversation was committed.
type Compaction struct {
	Turn         int   `json:"turn"`
	TokensBefore int64 `json:"tokens_before"`
	TokensAfter  int64 `json:"tokens_after"`
}

// HookDispatchError is a non-fatal hook fault: an unsupported arm, or an
// async hook's error, queue overflow or drain timeout.
type HookDispatchError struct {
	HookName string `json:"hook_name"`
	Event    string `json:"event"`
	Arm      string `json:"arm"`
}

// TaskReopened writes a task_reopened event.
func (w *Writer) TaskReopened(e TaskReopened) error { return w.write(TypeTaskReopened, nil, "", e) }

// Compaction writes a compaction event.
func (w *Writer) Compaction(e Compaction) error { return w.write(TypeCompaction, &e.Turn, "", e) }

// HookDispatchError writes a hook_dispatch_error event.
func (w *Writer) HookDispatchError(e HookDispatchError) error {
	return w.write(TypeHookDispatchError, nil, "", e)
}
