package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestMergePassAtEnv: merge reads --pass-at from MURMUR_EVAL_PASS_AT as the
// run does; a value that is not a list of integers is a usage error naming
// the variable.
func TestMergePassAtEnv(t *testing.T) {
	var out, errw bytes.Buffer
	code := runMerge([]string{"-o", t.TempDir()}, map[string]string{"MURMUR_EVAL_PASS_AT": "1,x"}, &out, &errw)
	if code != exitUsage || !strings.Contains(errw.String(), `MURMUR_EVAL_PASS_AT="1,x" is not a list of integers`) {
		t.Errorf("exit %d, stderr %q; want %d naming MURMUR_EVAL_PASS_AT", code, errw.String(), exitUsage)
	}
}
