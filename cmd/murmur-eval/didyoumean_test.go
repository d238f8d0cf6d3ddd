package main

import (
	"path/filepath"
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

// TestArtifactNameSuggests: an artifacts: entry that names nothing
// installed is refused with its code (E-REG-001, exit 2) and the closest
// installed name in the hint; one the lock does not pin (E-RUN-003), the
// closest pinned name (issue 39, finding 9).
func TestArtifactNameSuggests(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	f := newFixture(t, qs).withFlags("--filter", "direct-answer")
	manifest := filepath.Join(qs, "murmur.yaml")
	editFile(t, manifest, "  - name: calc\n", "  - name: calk\n")
	_, r := f.run()
	if r.code != exitUsage || !hasCode(r.stderr, errcode.RegistryNotFound) || !strings.Contains(r.stderr, `hint: did you mean "calc" (installed)?`) {
		t.Errorf("calk: exit %d, want %d with %s suggesting calc:\n%s", r.code, exitUsage, errcode.RegistryNotFound, r.stderr)
	}
	// With a lock that pins calc, the lock is read first.
	editFile(t, manifest, "  - name: calk\n", "  - name: calc\n")
	if _, r := f.run(); r.code != 0 {
		t.Fatalf("the run that writes the lock: exit %d\n%s", r.code, r.stderr)
	}
	editFile(t, manifest, "  - name: calc\n", "  - name: calk\n")
	_, r = f.run()
	if r.code != exitUsage || !hasCode(r.stderr, errcode.RunLock) || !strings.Contains(r.stderr, `hint: did you mean "calc" (pinned in murmur.lock)?`) {
		t.Errorf("calk with a lock: exit %d, want %d with %s suggesting calc:\n%s", r.code, exitUsage, errcode.RunLock, r.stderr)
	}
}
