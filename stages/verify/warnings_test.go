package verify

import (
	"errors"
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
	w := strings.Join(warnings(advisory, noLandlock, false, nil), "\n")
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
	w = strings.Join(warnings(advisory, sandbox.Host{UserNS: true, Landlock: true}, false, nil), "\n")
	if !strings.Contains(w, "warning[W-SEC-005]:") || strings.Contains(w, "W-SEC-002") {
		t.Errorf("with Landlock: warnings\n%s\nwant W-SEC-005 and no W-SEC-002", w)
	}
}

// TestEgressAndCgroupWarnings: W-SEC-003 only where the egress proxy
// cannot be set up (with the probe's reason), W-SEC-010 only where the run
// has no cgroup (with the reason), and neither for a capsule that runs no
// subprocess.
func TestEgressAndCgroupWarnings(t *testing.T) {
	parse := func(caps string) *capsule.Manifest {
		m, err := capsule.ParseManifest("murmur.yaml", []byte("name: c\nversion: 0.1.0\ncapabilities:\n"+caps), nil)
		if err != nil {
			t.Fatal(errcode.Format(err))
		}
		return m
	}
	shellNet := parse("  shell:\n    allow: [bash]\n  network:\n    allow: [api.example.com]\n")
	shellOnly := parse("  shell:\n    allow: [bash]\n")
	netOnly := parse("  network:\n    allow: [api.example.com]\n")
	proxyHost := sandbox.Host{UserNS: true, Landlock: true, Egress: true}
	noProxyHost := sandbox.Host{UserNS: true, Landlock: true, EgressReason: "no ambient capabilities"}
	noCgroup := errors.New("no writable cgroup hierarchy")
	for _, tc := range []struct {
		name     string
		m        *capsule.Manifest
		host     sandbox.Host
		cgErr    error
		want     []string
		wantNone []string
	}{
		{"proxy and cgroup", shellNet, proxyHost, nil, []string{"egress proxy"}, []string{"W-SEC-003", "W-SEC-010"}},
		{"no proxy", shellNet, noProxyHost, nil, []string{"W-SEC-003]: network.allow is not empty and this host cannot set up the egress proxy (no ambient capabilities)"}, []string{"W-SEC-010"}},
		{"no cgroup", shellOnly, proxyHost, noCgroup, []string{"W-SEC-010]: no cgroup for subprocesses (no writable cgroup hierarchy)"}, []string{"W-SEC-003"}},
		{"no subprocesses", netOnly, noProxyHost, nil, nil, []string{"W-SEC-003", "W-SEC-010"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := strings.Join(warnings(tc.m, tc.host, false, tc.cgErr), "\n")
			for _, s := range tc.want {
				if !strings.Contains(w, s) {
					t.Errorf("warnings\n%s\nlack %q", w, s)
				}
			}
			for _, s := range tc.wantNone {
				if strings.Contains(w, s) {
					t.Errorf("warnings\n%s\nhave %q", w, s)
				}
			}
		})
	}
}
