package sandbox

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Conformance tests named after murmur's integration tests
// (crates/murmur-cli/tests/<file>.rs::<function>); the table in
// docs/murmur-compatibility.md lists every row.

var conformanceHost = map[string]string{"HOME": "/root", "PATH": "/usr/bin", "MY_SETTING": "on", "GITHUB_TOKEN": "ghp_secret"}

// run.rs::run_without_env_capabilities_hides_host_credential_var_from_guest: no
// env.allow, no host variable reaches a guest.
func TestMurmur_run_without_env_capabilities_hides_host_credential_var_from_guest(t *testing.T) {
	if got := FilterEnv(conformanceHost, nil, nil); len(got) != 0 {
		t.Errorf("FilterEnv with no allow list = %v", got)
	}
}

// run.rs::run_with_env_allowlist_passes_declared_host_var_to_guest.
func TestMurmur_run_with_env_allowlist_passes_declared_host_var_to_guest(t *testing.T) {
	got := FilterEnv(conformanceHost, []string{"MY_SETTING"}, nil)
	if diff := cmp.Diff([]string{"MY_SETTING=on"}, got); diff != "" {
		t.Errorf("FilterEnv (-want +got):\n%s", diff)
	}
}

// run.rs::run_with_env_allowlisted_credential_var_is_still_stripped:
// GITHUB_TOKEN is stripped even when env.allow names it.
func TestMurmur_run_with_env_allowlisted_credential_var_is_still_stripped(t *testing.T) {
	got := FilterEnv(conformanceHost, []string{"GITHUB_TOKEN", "MY_SETTING"}, nil)
	if diff := cmp.Diff([]string{"MY_SETTING=on"}, got); diff != "" {
		t.Errorf("FilterEnv (-want +got):\n%s", diff)
	}
}

// limits.rs::spin_loop_capsule_is_interrupted_at_its_configured_deadline:
// the guest is stopped at its deadline and the model is told so in
// murmur's words.
func TestMurmur_spin_loop_capsule_is_interrupted_at_its_configured_deadline(t *testing.T) {
	e := newTestEngine(t, Config{})
	m := compileGuest(t, e, "spin")
	start := time.Now()
	_, err := e.Run(context.Background(), m, Call{Deadline: time.Second})
	if elapsed := time.Since(start); elapsed > 20*time.Second {
		t.Errorf("the guest ran %v past a 1s deadline", elapsed)
	}
	wantKind(t, err, ErrDeadline)
	if want := "tool 'spin' exceeded its 1s execution deadline (capabilities.limits.deadline_seconds) and was interrupted"; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

// run.rs::run_filesystem_escape_attempt_fails_and_does_not_write_outside_workdir:
// a WASM guest's reads, writes, links and renames through ../ paths,
// absolute paths and links planted in its session all fail, and nothing
// outside the session changes (the escape guest; TestGuestCannotLeave
// runs the same attempts).
func TestMurmur_run_filesystem_escape_attempt_fails_and_does_not_write_outside_workdir(t *testing.T) {
	e := newTestEngine(t, Config{})
	m := compileGuest(t, e, "escape")
	if err := runEscape(e, m, plantSession(t)); err != nil {
		t.Error(err)
	}
}
