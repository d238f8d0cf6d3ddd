package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAllowTaskOutsideDatasetFlag(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		ok   bool
		want bool
	}{
		{name: "off by default", ok: true},
		{name: "flag", args: []string{"--allow-task-outside-dataset"}, ok: true, want: true},
		{name: "env", env: map[string]string{"MURMUR_EVAL_ALLOW_TASK_OUTSIDE_DATASET": "true"}, ok: true, want: true},
		{name: "flag wins over env", args: []string{"--allow-task-outside-dataset=false"}, env: map[string]string{"MURMUR_EVAL_ALLOW_TASK_OUTSIDE_DATASET": "1"}, ok: true},
		{name: "bad env", env: map[string]string{"MURMUR_EVAL_ALLOW_TASK_OUTSIDE_DATASET": "sometimes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, ok := parseFlagCase(t, tt.args, tt.env, tt.ok)
			if ok && o.allowTaskOutside != tt.want {
				t.Errorf("allowTaskOutside = %v, want %v", o.allowTaskOutside, tt.want)
			}
		})
	}
}

// TestRunRefusesTaskOutsideDataset: the run stops before any session with
// a usage error naming the line and task_path, and the hint names the flag.
func TestRunRefusesTaskOutsideDataset(t *testing.T) {
	top := t.TempDir()
	if err := os.WriteFile(filepath.Join(top, "secret"), []byte("host file"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(top, "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(top, "secret"), filepath.Join(dir, "task.md")); err != nil {
		t.Fatal(err)
	}
	dataset := filepath.Join(dir, "cases.jsonl")
	if err := os.WriteFile(dataset, []byte(`{"case_id": "a", "task_path": "task.md"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{t.TempDir(), "--dataset", dataset, "--out", filepath.Join(top, "out")}, map[string]string{}, &stdout, &stderr)
	if code != exitUsage {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitUsage, stderr.String())
	}
	msg := stderr.String()
	for _, want := range []string{"E-EVAL-001", dataset + ":1", `"task_path"`, "--allow-task-outside-dataset"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, msg)
		}
	}
	if _, err := os.Stat(filepath.Join(top, "out")); !os.IsNotExist(err) {
		t.Errorf("the run folder was created: %v", err)
	}
}
