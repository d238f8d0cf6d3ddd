package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestTaskPathOutsideTheDatasetIsRefused is the lower finding of issue 13:
// a task_path outside the dataset's folder was copied into every session's
// task.md. Each way out is E-EVAL-001 at the line, naming task_path, unless
// Options.AllowTaskOutside; with it, the file is read.
func TestTaskPathOutsideTheDatasetIsRefused(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir, outside string) string // returns the task_path
		outside bool
	}{
		{"relative inside", func(t *testing.T, dir, _ string) string {
			writeFile(t, filepath.Join(dir, "tasks", "a.md"), "secret")
			return "tasks/a.md"
		}, false},
		{"absolute inside", func(t *testing.T, dir, _ string) string {
			writeFile(t, filepath.Join(dir, "a.md"), "secret")
			return filepath.Join(dir, "a.md")
		}, false},
		{"symlink inside to inside", func(t *testing.T, dir, _ string) string {
			writeFile(t, filepath.Join(dir, "real", "a.md"), "secret")
			symlink(t, filepath.Join("real", "a.md"), filepath.Join(dir, "link.md"))
			return "link.md"
		}, false},
		{"dot-dot", func(t *testing.T, _, outside string) string {
			return "../" + filepath.Base(filepath.Dir(outside)) + "/" + filepath.Base(outside)
		}, true},
		{"dot-dot inside then out", func(t *testing.T, dir, outside string) string {
			writeFile(t, filepath.Join(dir, "tasks", "x.md"), "x")
			return "tasks/../../" + filepath.Base(filepath.Dir(outside)) + "/" + filepath.Base(outside)
		}, true},
		{"absolute outside", func(t *testing.T, _, outside string) string { return outside }, true},
		{"symlink inside to a host file", func(t *testing.T, dir, outside string) string {
			symlink(t, outside, filepath.Join(dir, "shadow.md"))
			return "shadow.md"
		}, true},
		{"symlinked folder leading out", func(t *testing.T, dir, outside string) string {
			symlink(t, filepath.Dir(outside), filepath.Join(dir, "tasks"))
			return "tasks/" + filepath.Base(outside)
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top := t.TempDir()
			dir := filepath.Join(top, "dataset")
			outside := filepath.Join(top, "host", "shadow")
			writeFile(t, outside, "secret")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			taskPath := tt.setup(t, dir, outside)
			path := filepath.Join(dir, "cases.jsonl")
			writeFile(t, path, `{"case_id": "c", "task_path": `+quote(t, taskPath)+`}`+"\n")

			_, err := Load(path)
			if tt.outside {
				if !errcode.Is(err, errcode.EvalDataset) {
					t.Fatalf("Load = %v, want %s", err, errcode.EvalDataset)
				}
				e := codedErrors(t, err)[0]
				if e.Where != path+":1" || !strings.Contains(e.Msg, `"task_path"`) || !strings.Contains(e.Hint, "--allow-task-outside-dataset") {
					t.Errorf("error at %q: %q (hint %q); want at %s:1 naming task_path, hinting the flag", e.Where, e.Msg, e.Hint, path)
				}
			} else if err != nil {
				t.Fatalf("Load: %v", errcode.Format(err))
			}
			ds, err := Options{AllowTaskOutside: true}.Load(path)
			if err != nil {
				t.Fatalf("Load with AllowTaskOutside: %v", errcode.Format(err))
			}
			if got, err := allCases(t, ds)[0].ReadTask(); err != nil || got != "secret" {
				t.Errorf("ReadTask = %q, %v; want the file", got, err)
			}
		})
	}
}

// TestReadTaskStaysInsideAfterASwap: a task file replaced by a link out of
// the folder after the load is not read through it.
func TestReadTaskStaysInsideAfterASwap(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "dataset")
	task := filepath.Join(dir, "t.md")
	writeFile(t, task, "task")
	writeFile(t, filepath.Join(top, "secret"), "secret")
	writeFile(t, filepath.Join(dir, "cases.jsonl"), `{"case_id": "a", "task_path": "t.md"}`)
	ds, err := Load(filepath.Join(dir, "cases.jsonl"))
	if err != nil {
		t.Fatal(errcode.Format(err))
	}
	c := allCases(t, ds)[0] // the case as it starts, before the swap
	if err := os.Remove(task); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(top, "secret"), task)
	got, err := c.ReadTask()
	if err == nil || strings.Contains(got, "secret") {
		t.Fatalf("ReadTask = %q, %v; want an error and nothing of the file outside", got, err)
	}
}

// TestTaskFileFIFONeverBlocks: a FIFO as task file is refused at load, and
// one swapped in later fails ReadTask at once instead of hanging the case.
func TestTaskFileFIFONeverBlocks(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "t.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	path := filepath.Join(dir, "cases.jsonl")
	writeFile(t, path, `{"case_id": "a", "task_path": "t.md"}`)
	if _, err := (Options{AllowTaskOutside: true}).Load(path); !errcode.Is(err, errcode.EvalDataset) {
		t.Fatalf("Load with a FIFO task = %v, want %s", err, errcode.EvalDataset)
	}
	if err := os.Remove(fifo); err != nil {
		t.Fatal(err)
	}
	writeFile(t, fifo, "task")
	ds, err := Load(path)
	if err != nil {
		t.Fatal(errcode.Format(err))
	}
	c := allCases(t, ds)[0] // the case as it starts, before the swap
	if err := os.Remove(fifo); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := c.ReadTask(); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("ReadTask of a FIFO succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadTask blocked on a FIFO")
	}
}

// TestDatasetReachedThroughASymlink: a dataset whose folder is itself
// reached through a link still reads its own task files.
func TestDatasetReachedThroughASymlink(t *testing.T) {
	top := t.TempDir()
	writeFile(t, filepath.Join(top, "real", "t.md"), "task")
	writeFile(t, filepath.Join(top, "real", "cases.jsonl"), `{"case_id": "a", "task_path": "t.md"}`)
	symlink(t, filepath.Join(top, "real"), filepath.Join(top, "alias"))
	ds, err := Load(filepath.Join(top, "alias", "cases.jsonl"))
	if err != nil {
		t.Fatal(errcode.Format(err))
	}
	if got, err := allCases(t, ds)[0].ReadTask(); err != nil || got != "task" {
		t.Errorf("ReadTask = %q, %v", got, err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
