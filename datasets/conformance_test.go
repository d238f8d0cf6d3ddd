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
// (RATIONALE.md "Why do murmur-eval's errors name the location first?").
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
