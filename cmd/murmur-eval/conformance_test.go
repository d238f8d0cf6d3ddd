package main

import (
	"os"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Conformance tests named after murmur's integration tests
// (crates/murmur-cli/tests/<file>.rs::<function>); the table in
// docs/murmur-compatibility.md lists every row.

// eval_cmd.rs::run_no_args_default_dataset_absent_gives_clear_error (and
// run_explicit_capsule_only_…): without --dataset the dataset is
// ./eval.jsonl; when it is not there, E-IO-001 with murmur's words.
// (Not parallel: it changes the working directory.)
func TestMurmur_run_no_args_default_dataset_absent_gives_clear_error(t *testing.T) {
	t.Chdir(t.TempDir())
	o := &options{}
	err := o.validate(nil)
	if !errcode.Is(err, errcode.IONotFound) || !strings.Contains(err.Error(), "no dataset found. Expected ./eval.jsonl or specify with --dataset <path>") {
		t.Fatalf("validate = %v", err)
	}
	if err := os.WriteFile("eval.jsonl", []byte(`{"case_id":"a","task":"t"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o = &options{}
	_ = o.validate(nil) // the zero options fail later checks; the dataset is settled first
	if o.dataset != "eval.jsonl" {
		t.Errorf("dataset = %q, want eval.jsonl", o.dataset)
	}
}
