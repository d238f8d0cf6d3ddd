package verify

import (
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// TestContainmentAnswerWithoutLandlock: on a host without Landlock (or off
// Linux), an advisory capsule with shell tools gets murmur's W-SEC-002 and
// runs; one declaring scoped is refused with E-CAP-003 before anything is
// compiled; with Landlock the warning is W-SEC-005. Network warnings
// (W-SEC-007) join the list.
func TestContainmentAnswerWithoutLandlock(t *testing.T) {
	manifest := func(caps string) *capsule.Manifest {
		m, err := capsule.ParseManifest("murmur.yaml", []byte("name: c\nversion: 0.1.0\ncapabilities:\n"+caps), nil)
		if err != nil {
			t.Fatal(errcode.Format(err))
		}
		return m
	}
	advisory := manifest("  shell:\n    allow: [bash]\n")
	noLandlock := sandbox.Host{UserNS: true, LandlockReason: "the kernel offers no Landlock"}
	w := strings.Join(warnings(advisory, noLandlock, false), "\n")
	if !strings.Contains(w, "warning[W-SEC-002]: shell tools run without Landlock on this host (the kernel offers no Landlock)") {
		t.Errorf("advisory without Landlock: warnings\n%s\nlack W-SEC-002", w)
	}
	if err := sandbox.Classify(noLandlock, advisory.Capabilities).Err(); err != nil {
		t.Errorf("advisory without Landlock refused: %v", err)
	}
	scoped := manifest("  containment: scoped\n  shell:\n    allow: [bash]\n")
	if err := sandbox.Classify(noLandlock, scoped.Capabilities).Err(); !errcode.Is(err, errcode.CapContainment) {
		t.Errorf("scoped without Landlock: %v, want %s", err, errcode.CapContainment)
	}
	w = strings.Join(warnings(advisory, sandbox.Host{UserNS: true, Landlock: true}, false), "\n")
	if !strings.Contains(w, "warning[W-SEC-005]:") || strings.Contains(w, "W-SEC-002") {
		t.Errorf("with Landlock: warnings\n%s\nwant W-SEC-005 and no W-SEC-002", w)
	}
}
