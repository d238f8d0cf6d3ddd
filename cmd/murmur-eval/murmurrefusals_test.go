package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// murmur's refusals of a capsule murmur-eval runs (agent.rs
// DriverNotInstalled, runtime.rs NetworkPolicyHooks::send_request and
// is_queue_sleep): a live run warns with murmur's code and text first,
// before any case starts, and --strict refuses it without contacting the
// model; a --replay run, which reaches no endpoint, warns of neither.
func TestMurmur_refusals_are_warned_before_any_case(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	out := filepath.Join(reachableTempDir(t), "run")
	r := newFixture(t, qs).live().runInto(out, "--strict")
	if r.code != exitUsage || !hasCode(r.stderr, errcode.StrictWarning) {
		t.Fatalf("live --strict: exit %d, want %d with %s\nstderr:\n%s", r.code, exitUsage, errcode.StrictWarning, r.stderr)
	}
	for _, want := range []string{
		"murmur-eval: warning: error[E-RUN-006]: murmur.yaml: inference driver 'murmur-driver-anthropic' is not installed in the local tool registry (",
		"  hint: declare the driver artifact in murmur.yaml artifacts: and run `mur run` to install it",
		"murmur-eval: warning: error[E-EVL-081]: murmur.yaml: driver: failed to dispatch HTTP request: ErrorCode::HttpRequestDenied (",
		"  hint: add https://api.anthropic.com to capabilities.network.allow in murmur.yaml",
	} {
		if strings.Count(r.stderr, want) != 1 {
			t.Errorf("stderr does not hold once %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "api.anthropic.com: ") || strings.Contains(r.stderr, "capsule prepared") {
		t.Errorf("--strict went on past the warnings:\n%s", r.stderr)
	}

	// queue + sleep would hang mur eval run; murmur-eval runs the case as
	// one task and finishes.
	editFile(t, filepath.Join(qs, "murmur.yaml"), "\ncapabilities:\n", "\nlifecycle:\n  task_acceptance: queue\n  after_task: sleep\n\ncapabilities:\n")
	_, r = newFixture(t, qs).run("--filter", "calc-multiply")
	if r.code != exitOK {
		t.Fatalf("replay with queue+sleep: exit %d, want 0\nstderr:\n%s", r.code, r.stderr)
	}
	if want := "murmur-eval: warning: error[E-EVL-080]: murmur.yaml: lifecycle task_acceptance 'queue' with after_task 'sleep' waits for the next A2A task forever after task.md ("; strings.Count(r.stderr, want) != 1 {
		t.Errorf("stderr does not hold once %q:\n%s", want, r.stderr)
	}
	if hasCode(r.stderr, errcode.RunDriverAbsent) || hasCode(r.stderr, errcode.MurmurEndpointDenied) {
		t.Errorf("a --replay run warned about the driver or the endpoint:\n%s", r.stderr)
	}
}
