package datasets

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func TestLoadAcceptsOddities(t *testing.T) {
	dir := t.TempDir()
	abs := filepath.Join(t.TempDir(), "elsewhere.md")
	writeFile(t, abs, "absolute task")
	writeFile(t, filepath.Join(dir, "tasks", "rel.md"), "relative task")
	long := strings.Repeat("x", 200<<10) // far past bufio.Scanner's 64 KiB line limit

	lines := []string{
		"\ufeff" + `{"case_id": "rel", "task_path": "tasks/rel.md", "expected": {"b": [1, 2],  "a": "x"}}`,
		"",
		"   \t",
		`{"case_id": "abs", "task_path": ` + quote(t, abs) + `, "expected": null}`,
		`{"case_id": "inline", "task": "What is 6*7?", "expected": 42, "unknown": {"kept": false}}`,
		`{"case_id": "notes/round trip", "task": "` + long + `"}`,
	}
	path := filepath.Join(dir, "cases.jsonl")
	writeFile(t, path, strings.Join(lines, "\r\n")+"\r\n\r\n")

	// The absolute task path is outside the dataset's folder.
	ds, err := Options{AllowTaskOutside: true}.Load(path)
	if err != nil {
		t.Fatalf("Load() error: %v", errcode.Format(err))
	}
	want := []Case{
		{ID: "rel", TaskPath: filepath.Join(dir, "tasks", "rel.md"), Expected: json.RawMessage(`{"b": [1, 2],  "a": "x"}`), Line: 1},
		{ID: "abs", TaskPath: abs, Line: 4},
		{ID: "inline", Task: "What is 6*7?", Expected: json.RawMessage(`42`), Line: 5},
		{ID: "notes/round trip", Task: long, Line: 6},
	}
	if diff := cmp.Diff(want, allCases(t, ds), cmpopts.IgnoreUnexported(Case{})); diff != "" {
		t.Errorf("Load() (-want +got):\n%s", diff)
	}

	for i, wantTask := range []string{"relative task", "absolute task", "What is 6*7?", long} {
		if got, err := allCases(t, ds)[i].ReadTask(); err != nil || got != wantTask {
			t.Errorf("Cases[%d].ReadTask() = %.20q, %v; want %.20q, nil", i, got, err, wantTask)
		}
	}
}

func TestLoadRelativeDatasetPath(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "data", "cases.jsonl"), `{"case_id": "a", "task_path": "t.md"}`)
	writeFile(t, filepath.Join(dir, "data", "t.md"), "task")
	t.Chdir(dir)

	ds, err := Load(filepath.Join("data", "cases.jsonl"))
	if err != nil {
		t.Fatalf("Load() error: %v", errcode.Format(err))
	}
	// The task path is absolute, so it survives a later change of directory.
	if got, want := allCases(t, ds)[0].TaskPath, filepath.Join(dir, "data", "t.md"); got != want {
		t.Errorf("TaskPath = %q, want %q", got, want)
	}
}

func TestReadTaskVanished(t *testing.T) {
	dir := t.TempDir()
	task := filepath.Join(dir, "t.md")
	writeFile(t, task, "task")
	writeFile(t, filepath.Join(dir, "cases.jsonl"), `{"case_id": "a", "task_path": "t.md"}`)
	ds, err := Load(filepath.Join(dir, "cases.jsonl"))
	if err != nil {
		t.Fatalf("Load() error: %v", errcode.Format(err))
	}
	c := allCases(t, ds)[0] // the case as it starts, before the file goes
	if err := os.Remove(task); err != nil {
		t.Fatal(err)
	}
	_, err = c.ReadTask()
	if got := errcode.Code(err); got != errcode.IONotFound {
		t.Errorf("ReadTask() code = %q, want %q (err: %v)", got, errcode.IONotFound, err)
	}
	if ce := (*errcode.Error)(nil); errors.As(err, &ce) && ce.Where != task {
		t.Errorf("ReadTask() Where = %q, want %q", ce.Where, task)
	}
}

func quote(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// allCases reads every case of ds again (Dataset.All).
func allCases(t *testing.T, ds *Dataset) []Case {
	t.Helper()
	t.Cleanup(func() { _ = ds.Close() })
	var out []Case
	for c, err := range ds.All() {
		if err != nil {
			t.Fatalf("All(): %v", errcode.Format(err))
		}
		out = append(out, c)
	}
	return out
}
