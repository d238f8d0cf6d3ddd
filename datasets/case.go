package datasets

import (
	"encoding/json"
	"errors"
	"io/fs"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Case is one line of a dataset.
type Case struct {
	// ID is the case_id: non-blank and unique within its dataset.
	ID string
	// Task is the inline task text; "" when the case names a task file.
	Task string
	// TaskPath is the resolved path of task_path; "" when the task is inline.
	TaskPath string
	// TaskFromWorkingDir records that task_path was not found relative to
	// the dataset's folder and was found, as murmur reads it, relative to
	// the working directory (Options.WorkingDir).
	TaskFromWorkingDir bool
	// Expected is the "expected" value, byte for byte; nil when absent or null.
	Expected json.RawMessage
	// Workspace is the resolved path of the case's workspace (a folder or
	// an archive), "" without one; WorkspaceKind is its kind (WorkspaceDir,
	// WorkspaceTar, WorkspaceTarGz, WorkspaceZip).
	Workspace, WorkspaceKind string
	// Setup is the case's setup command; nil without one.
	Setup *Setup
	// Line is the 1-based line of the case in its dataset file.
	Line int

	// taskRoot and taskRel are where ReadTask reads the task file: rel
	// beneath the dataset's folder. taskRoot is "" for a file outside the
	// folder (Options.AllowTaskOutside), read at TaskPath.
	taskRoot, taskRel string
}

// ReadTask returns the task text: the inline text, or the content of the
// task file, which is read now rather than at load, from beneath the
// dataset's folder (a link swapped in since the load cannot lead out of it)
// unless the load allowed files outside. A task file that has vanished
// since the load is E-IO-001 naming its path.
func (c Case) ReadTask() (string, error) {
	if c.TaskPath == "" {
		return c.Task, nil
	}
	b, err := readTaskFile(c.taskRoot, c.taskRel, c.TaskPath)
	if err == nil {
		return string(b), nil
	}
	code := errcode.IO
	switch {
	case errors.Is(err, fs.ErrNotExist):
		code = errcode.IONotFound
	case errors.Is(err, fs.ErrPermission):
		code = errcode.IOPermission
	}
	return "", errcode.Wrap(code, err, "case %q: cannot read task file", c.ID).
		At(c.TaskPath).
		WithHint("the task file was checked when the dataset loaded; was it moved or deleted since?")
}
