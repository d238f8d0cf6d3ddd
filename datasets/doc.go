// Package datasets reads the JSONL dataset of an evaluation run.
//
// Each non-blank line is one case, the format of murmur's `mur eval run`:
//
//	{"case_id": "login-3", "task_path": "tasks/login.md", "expected": {...}}
//
// murmur-eval also accepts an inline task instead of a task file:
//
//	{"case_id": "add", "task": "What is 6*7?"}
//
// task_path is resolved relative to the dataset file's folder, so a dataset
// works from any working directory (murmur resolves it against the working
// directory). A task file must lie inside that folder, symlinks resolved,
// unless [Options.AllowTaskOutside] (--allow-task-outside-dataset): a dataset
// is input from elsewhere and must not copy host files into the sessions.
// Task files are only checked (regular, inside) when the dataset loads and
// are read per case by [Case.ReadTask], beneath the folder, so memory does
// not grow with the size of the tasks.
//
// Unknown keys are ignored, as murmur does. Bad lines are all reported in one
// error whose code is [errcode.EvalDataset], each with Where = "file:line".
package datasets
