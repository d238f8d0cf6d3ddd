package contain

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// Conformance tests named after murmur's integration tests
// (crates/murmur-cli/tests/<file>.rs::<function>); the table in
// docs/murmur-compatibility.md lists every row.

// trace.rs::session_start_effective_grants_match_explain_scope_json:
// effective_grants is murmur's ScopeReport, keys in its declaration order,
// enforcement_tier in murmur's names; murmur-eval's additions
// (enforcement_mechanism, subprocess_egress) come after.
func TestMurmur_session_start_effective_grants_match_explain_scope_json(t *testing.T) {
	c := caseFor(t, base+"capabilities:\n  containment: scoped\n  network: {allow: [api.example.com]}\n  shell: {allow: [bash]}\n  env: {allow: [TZ]}\n")
	caps := capsuleOf(c).Manifest.Capabilities
	g := grants(sandbox.Classify(sandbox.Host{Landlock: true}, caps), caps, "proxy")
	b, err := json.Marshal(trace.Grants(g))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"declared_containment":"scoped","achieved_containment":"scoped","floor_met":true,` +
		`"enforcement_tier":"landlock+seccomp","filesystem_scope":null,"workdir_exec":false,` +
		`"network_allow":["api.example.com"],"unix_sockets":false,"shell_allow":["bash"],"spawn_allow":[],` +
		`"env_allow":["TZ"],"interpreter_runtime_grants":[],"staged_runtime_grants":[],` +
		`"enforcement_mechanism":"` + sandbox.TierLandlock + `","subprocess_egress":"proxy"}`
	if string(b) != want {
		t.Errorf("effective_grants\n got %s\nwant %s", b, want)
	}
}

// trace.rs::effective_grants_network_allow_tracks_the_manifest_across_two_runs:
// network_allow is the manifest's list, in its order; without Landlock the
// tier is murmur's "none" and shortfall_reason sits after floor_met.
func TestMurmur_effective_grants_network_allow_tracks_the_manifest_across_two_runs(t *testing.T) {
	for _, allow := range []string{"[b.example.com, a.example.com]", "[a.example.com]"} {
		c := caseFor(t, base+"capabilities:\n  containment: scoped\n  network: {allow: "+allow+"}\n")
		caps := capsuleOf(c).Manifest.Capabilities
		b, _ := json.Marshal(trace.Grants(grants(sandbox.Classify(sandbox.Host{}, caps), caps, "no-subprocesses")))
		s := string(b)
		wantAllow := `"network_allow":["` + strings.Join(caps.Network.Allow, `","`) + `"]`
		if !strings.Contains(s, wantAllow) || !strings.Contains(s, `"floor_met":false,"shortfall_reason":`) || !strings.Contains(s, `"enforcement_tier":"none"`) {
			t.Errorf("allow %s: effective_grants %s", allow, s)
		}
	}
}
