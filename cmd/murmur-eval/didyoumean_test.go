package main

import (
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestUnknownFlagSuggests: every subcommand refuses an unknown flag with a
// usage error (exit 2, E-EVL-001) that names the flag as typed and, in
// its hint, the closest flag of that subcommand (issue 39, finding 9).
func TestUnknownFlagSuggests(t *testing.T) {
	e2eBinary(t)
	t.Parallel()
	for _, tc := range []struct {
		args       []string
		flag, want string // the flag as typed; the suggestion ("" for none)
	}{
		{[]string{"--worker", "4", "--dataset", "cases.jsonl"}, "--worker", "--workers"},
		{[]string{"run", "--datset", "cases.jsonl"}, "--datset", "--dataset"},
		{[]string{"-workers", "4"}, "-workers", "--workers"}, // Go's flag style
		{[]string{"show", "--markdwn", "runs/a"}, "--markdwn", "--markdown"},
		{[]string{"diff", "--jsno", "runs/a", "runs/b"}, "--jsno", "--json"},
		{[]string{"merge", "--allow-mising", "-o", "m", "runs/a"}, "--allow-mising", "--allow-missing"},
		{[]string{"report", "--flaky-flip", "2", "runs/a"}, "--flaky-flip", "--flaky-flips"},
		{[]string{"pack", "--stor", "store", "tools/calc"}, "--stor", "--store"},
		{[]string{"show", "--colour", "runs/a"}, "--colour", ""},
	} {
		r, _ := runE2E(t, tc.args, plainArgs())
		name := strings.Join(tc.args, " ")
		if r.code != exitUsage || !hasCode(r.stderr, errcode.Usage) || !strings.Contains(r.stderr, "unknown flag "+tc.flag) {
			t.Errorf("%s: exit %d, want %d with %s naming %s:\n%s", name, r.code, exitUsage, errcode.Usage, tc.flag, r.stderr)
			continue
		}
		hint := "  hint: did you mean " + tc.want + "?"
		if tc.want == "" {
			hint = "  hint: murmur-eval "
		}
		if !strings.Contains(r.stderr, hint) {
			t.Errorf("%s: want a hint %q:\n%s", name, hint, r.stderr)
		}
	}
}
