package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// murmur's refusals of a capsule murmur-eval runs (agent.rs
// DriverNotInstalled, runtime.rs NetworkPolicyHooks::send_request and
// is_queue_sleep) refuse a live run before any case starts, with murmur's
// code, text and hint as errors and without contacting the model (issue
// 39, finding 1: they were warnings, and the run went on); --driver
// builtin, which runs neither the driver component nor its network grant,
// makes the inference ones warnings (here refused by --strict, so that no
// request leaves the machine); a --replay run, which reaches no endpoint,
// has neither. queue + sleep is refused in any run; --run-anyway runs it.
func TestMurmur_refusals_are_refused_before_any_case(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	out := filepath.Join(reachableTempDir(t), "run")
	r := newFixture(t, qs).live().runInto(out)
	if r.code != exitUsage || !hasCode(r.stderr, errcode.RunDriverAbsent) || !hasCode(r.stderr, errcode.MurmurEndpointDenied) {
		t.Fatalf("live: exit %d, want %d with %s and %s\nstderr:\n%s", r.code, exitUsage, errcode.RunDriverAbsent, errcode.MurmurEndpointDenied, r.stderr)
	}
	for _, want := range []string{
		"murmur-eval: no case was started: the run is refused for the 2 errors below (--run-anyway, MURMUR_EVAL_RUN_ANYWAY, runs with them as warnings)\n",
		"\nerror[E-RUN-006]: murmur.yaml: inference driver 'murmur-driver-anthropic' is not installed in the local tool registry (",
		"  hint: declare the driver artifact in murmur.yaml artifacts: and run `mur run` to install it, or run murmur-eval with --driver builtin",
		"\nerror[E-EVL-081]: murmur.yaml: driver: failed to dispatch HTTP request: ErrorCode::HttpRequestDenied (",
		"  hint: add https://api.anthropic.com to capabilities.network.allow in murmur.yaml",
	} {
		if strings.Count(r.stderr, want) != 1 {
			t.Errorf("stderr does not hold once %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "murmur-eval: warning") || strings.Contains(r.stderr, "capsule prepared") {
		t.Errorf("the refused run warned, or went on past the refusals:\n%s", r.stderr)
	}

	// --driver builtin: warnings (which --strict refuses before any request).
	r = newFixture(t, qs).live().runInto(filepath.Join(reachableTempDir(t), "run"), "--driver", "builtin", "--strict")
	if r.code != exitUsage || !hasCode(r.stderr, errcode.StrictWarning) {
		t.Fatalf("--driver builtin --strict: exit %d, want %d with %s\nstderr:\n%s", r.code, exitUsage, errcode.StrictWarning, r.stderr)
	}
	for _, want := range []string{"murmur-eval: warning[E-RUN-006]: murmur.yaml: ", "murmur-eval: warning[E-EVL-081]: murmur.yaml: driver: "} {
		if strings.Count(r.stderr, want) != 1 {
			t.Errorf("--driver builtin: stderr does not hold once %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "api.anthropic.com: ") || strings.Contains(r.stderr, "capsule prepared") {
		t.Errorf("--strict went on past the warnings:\n%s", r.stderr)
	}

	// queue + sleep would hang mur eval run: refused, also in a replay run;
	// --run-anyway runs each case as one task, and it finishes.
	editFile(t, filepath.Join(qs, "murmur.yaml"), "\ncapabilities:\n", "\nlifecycle:\n  task_acceptance: queue\n  after_task: sleep\n\ncapabilities:\n")
	_, r = newFixture(t, qs).run("--filter", "calc-multiply")
	if r.code != exitUsage || !strings.Contains(r.stderr, "\nerror[E-EVL-080]: murmur.yaml: lifecycle task_acceptance 'queue' with after_task 'sleep' waits for the next A2A task forever after task.md (") {
		t.Fatalf("replay with queue+sleep: exit %d, want %d with E-EVL-080\nstderr:\n%s", r.code, exitUsage, r.stderr)
	}
	_, r = newFixture(t, qs).run("--filter", "calc-multiply", "--run-anyway")
	if r.code != exitOK {
		t.Fatalf("replay with queue+sleep, --run-anyway: exit %d, want 0\nstderr:\n%s", r.code, r.stderr)
	}
	if want := "murmur-eval: warning[E-EVL-080]: murmur.yaml: lifecycle task_acceptance 'queue' with after_task 'sleep' waits for the next A2A task forever after task.md ("; strings.Count(r.stderr, want) != 1 {
		t.Errorf("stderr does not hold once %q:\n%s", want, r.stderr)
	}
	if hasCode(r.stderr, errcode.RunDriverAbsent) || hasCode(r.stderr, errcode.MurmurEndpointDenied) || strings.Contains(r.stderr, "E-RUN-006") {
		t.Errorf("a --replay run warned about the driver or the endpoint:\n%s", r.stderr)
	}
}
