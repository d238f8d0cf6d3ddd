package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestDiffAndShowUsage(t *testing.T) {
	for _, args := range [][]string{
		{"diff"},
		{"diff", "only-one"},
		{"diff", "a", "b", "c"},
		{"diff", "--alpha", "2", "a", "b"},
		{"diff", "--max-drop", "x", "a", "b"},
		{"diff", "--bogus", "a", "b"},
		{"diff", t.TempDir(), t.TempDir()}, // folders without results.parquet
		{"show"},
		{"show", "a", "b"},
		{"show", "--json", "--markdown", "a"},
		{"show", t.TempDir()},
		{"--fail-under", "120%", "--dataset", "x.jsonl", "--replay", "r"},
		{"--max-error-rate", "2", "--dataset", "x.jsonl", "--replay", "r"},
		{"--check-timeout", "0s", "--dataset", "x.jsonl", "--replay", "r"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, map[string]string{}, &stdout, &stderr)
		if code != exitUsage || !strings.HasPrefix(stderr.String(), "error[E-") {
			t.Errorf("%v: exit %d, stderr %q; want %d and a coded error", args, code, stderr.String(), exitUsage)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"diff", "a", "b"}, map[string]string{"MURMUR_EVAL_ALPHA": "lots"}, &stdout, &stderr); code != exitUsage {
		t.Errorf("a bad MURMUR_EVAL_ALPHA: exit %d, want %d", code, exitUsage)
	}
}
