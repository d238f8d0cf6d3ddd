package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Conformance tests named after murmur's integration tests
// (crates/murmur-cli/tests/<file>.rs::<function>); the table in
// docs/murmur-compatibility.md lists every row.

// eval_cmd.rs::run_explicit_dataset_only_capsule_defaults_to_cwd and
// run_both_explicit_uses_given_paths: a dataset that is not there is
// E-IO-001. murmur says "dataset not found at <path>"; murmur-eval says
// "<path>: dataset not found: …", its errors' location-first form
// (RATIONALE.md "Why do murmur-eval's errors name the location first, and
// exit 2?").
func TestMurmur_run_explicit_dataset_only_capsule_defaults_to_cwd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.jsonl")
	_, err := Load(path)
	if !errcode.Is(err, errcode.IONotFound) {
		t.Fatalf("Load = %v, want %s", err, errcode.IONotFound)
	}
	for _, want := range []string{path + ": dataset not found"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}

// eval.rs's empty dataset: E-IO-003 (murmur: "dataset is empty: <path>").
func TestMurmur_eval_empty_dataset(t *testing.T) {
	path := filepath.Join(t.TempDir(), "eval.jsonl")
	if err := os.WriteFile(path, []byte("\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if !errcode.Is(err, errcode.IO) || !strings.Contains(err.Error(), path) {
		t.Fatalf("Load = %v, want %s naming %s", err, errcode.IO, path)
	}
}

// writeFiles creates files (slash paths under root) with their contents.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// eval.rs (mur eval run): a task_path is read relative to the working
// directory. murmur-eval reads it relative to the dataset's folder, then,
// when not found there, relative to the working directory as murmur does,
// and records that; the file must still lie inside the dataset's folder
// unless --allow-task-outside-dataset (RATIONALE.md "Why must task_path
// stay inside the dataset's folder?").
func TestMurmur_eval_task_path_relative_to_working_directory(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"evals/tasks/a.md": "task a",
		"tasks/b.md":       "task b (outside evals/)",
		"evals/c.md":       "c in the dataset's folder",
		"c.md":             "c in the working directory",
	})
	load := func(line string, allow bool) (*Dataset, error) {
		path := filepath.Join(root, "evals", "eval.jsonl")
		if err := os.WriteFile(path, []byte(line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return Options{WorkingDir: root, AllowTaskOutside: allow}.Load(path)
	}

	// Written for `mur eval run` from root: found from the working directory.
	ds, err := load(`{"case_id":"a","task_path":"evals/tasks/a.md"}`, false)
	if err != nil {
		t.Fatal(err)
	}
	if c := allCases(t, ds)[0]; !c.TaskFromWorkingDir || ds.FromWorkingDir()[0] != "a" {
		t.Errorf("case %+v not recorded as found from the working directory", c)
	}
	if text, err := allCases(t, ds)[0].ReadTask(); err != nil || text != "task a" {
		t.Errorf("ReadTask = %q, %v", text, err)
	}

	// The dataset's folder comes first.
	ds, err = load(`{"case_id":"c","task_path":"c.md"}`, false)
	if err != nil || allCases(t, ds)[0].TaskFromWorkingDir {
		t.Fatalf("Load = %+v, %v; want c.md from the dataset's folder", ds, err)
	}
	if text, _ := allCases(t, ds)[0].ReadTask(); text != "c in the dataset's folder" {
		t.Errorf("ReadTask = %q", text)
	}

	// From the working directory but outside the dataset's folder: the same
	// rule as any task file.
	_, err = load(`{"case_id":"b","task_path":"tasks/b.md"}`, false)
	if !errcode.Is(err, errcode.EvalDataset) || !strings.Contains(err.Error(), "working directory") {
		t.Errorf("outside from the working directory: %v, want %s naming the working directory", err, errcode.EvalDataset)
	}
	ds, err = load(`{"case_id":"b","task_path":"tasks/b.md"}`, true)
	if err != nil || !allCases(t, ds)[0].TaskFromWorkingDir {
		t.Fatalf("with --allow-task-outside-dataset: %+v, %v", ds, err)
	}
	if text, _ := allCases(t, ds)[0].ReadTask(); text != "task b (outside evals/)" {
		t.Errorf("ReadTask = %q", text)
	}

	// Found nowhere: murmur warns and runs without a task; murmur-eval
	// refuses, naming both places it looked.
	_, err = load(`{"case_id":"d","task_path":"nope.md"}`, false)
	if !errcode.Is(err, errcode.EvalDataset) || !strings.Contains(errcode.Format(err), "then to the working directory") {
		t.Errorf("missing task file: %v", err)
	}
}
