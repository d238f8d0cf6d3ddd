package main

import (
	"testing"
)

// TestWorkdirMaxFilesFlag: --workdir-max-files defaults to 50,000, comes
// from MURMUR_EVAL_WORKDIR_MAX_FILES, loses to the flag, takes 0 (no
// bound) and refuses a negative or unparsable value (exit 2).
func TestWorkdirMaxFilesFlag(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		ok   bool
		want int
	}{
		{name: "default", ok: true, want: 50_000},
		{name: "flag", args: []string{"--workdir-max-files", "500"}, ok: true, want: 500},
		{name: "environment", env: map[string]string{"MURMUR_EVAL_WORKDIR_MAX_FILES": "7"}, ok: true, want: 7},
		{name: "flag wins over environment", args: []string{"--workdir-max-files=9"}, env: map[string]string{"MURMUR_EVAL_WORKDIR_MAX_FILES": "7"}, ok: true, want: 9},
		{name: "no bound", args: []string{"--workdir-max-files", "0"}, ok: true, want: 0},
		{name: "negative", args: []string{"--workdir-max-files", "-1"}},
		{name: "not a number", env: map[string]string{"MURMUR_EVAL_WORKDIR_MAX_FILES": "many"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, ok := parseFlagCase(t, tc.args, tc.env, tc.ok)
			if !ok {
				return
			}
			if o.workdirMaxFiles != tc.want {
				t.Errorf("workdirMaxFiles = %d, want %d", o.workdirMaxFiles, tc.want)
			}
		})
	}
}
