package sandbox

import (
	"testing"

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
