package contain

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/stages/resolve"
	"github.com/murmur-nexus/murmur-eval/stages/staging"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
)

func caseFor(t *testing.T, manifest string) *pipeline.Case {
	t.Helper()
	m, err := capsule.ParseManifest("murmur.yaml", []byte(manifest), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	c := &pipeline.Case{SessionID: "ses_1", SessionDir: t.TempDir()}
	pipeline.Store(c, resolve.Result, &resolve.Capsule{Manifest: m})
	pipeline.Store(c, verify.Result, &verify.Toolset{})
	pipeline.Store(c, staging.Result, &staging.Staged{})
	return c
}

// capsuleOf, toolsetOf and policyOf are the case's results.
func capsuleOf(c *pipeline.Case) *resolve.Capsule {
	r, _ := pipeline.Lookup(c, resolve.Result)
	return r
}
func toolsetOf(c *pipeline.Case) *verify.Toolset { r, _ := pipeline.Lookup(c, verify.Result); return r }
func policyOf(c *pipeline.Case) *Policy          { r, _ := pipeline.Lookup(c, Result); return r }

const base = `name: qs
version: "1.0"
inference: {endpoint: "https://api.example.com", model: m, driver: {artifact: d}}
`

func TestContainRefusesFloorsItCannotMeet(t *testing.T) {
	for _, tc := range []struct {
		caps     string
		landlock bool
		want     string // "" for accepted, else the achieved class
	}{
		{"{containment: scoped}", false, errcode.CapContainment},
		{"{containment: sealed}", false, errcode.CapContainment},
		{"{containment: scoped}", true, ""},
		{"{containment: sealed}", true, errcode.CapContainment},
		{"{containment: scoped, filesystem: {workdir_exec: true}}", true, errcode.CapContainment},
	} {
		c := caseFor(t, base+"capabilities: "+tc.caps+"\n")
		toolsetOf(c).Host = sandbox.Host{Landlock: tc.landlock}
		err := New(nil).Run(context.Background(), c)
		if got := errcode.Code(err); got != tc.want {
			t.Errorf("%s landlock=%v: code %q, want %q (%v)", tc.caps, tc.landlock, got, tc.want, err)
		}
	}
	c := caseFor(t, base+"capabilities: {containment: advisory}\n")
	if err := New(nil).Run(context.Background(), c); err != nil {
		t.Errorf("advisory: %v", err)
	}
}

func TestContainPolicy(t *testing.T) {
	host := map[string]string{"FOO": "1", "OPENAI_API_KEY": "sk-secret", "BAR": "2", "HOME": "/root", "AWS_REGION": "x"}
	c := caseFor(t, base+"capabilities: {env: {allow: [FOO, OPENAI_API_KEY, AWS_REGION, UNSET]}, limits: {deadline_seconds: 7}}\n")
	if err := New(host).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	p := policyOf(c)
	want := []string{
		"FOO=1",
		"MURMUR_CAPSULE_NAME=qs",
		"MURMUR_CAPSULE_VERSION=1.0",
		"MURMUR_SESSION_ID=ses_1",
		"MURMUR_INFERENCE_TRANSPORT=http",
		"MURMUR_INFERENCE_ENDPOINT=https://api.example.com",
		"MURMUR_INFERENCE_MODEL=m",
		"MURMUR_INFERENCE_DRIVER=d",
	}
	if diff := cmp.Diff(want, p.Env); diff != "" {
		t.Errorf("guest env (-want +got):\n%s", diff)
	}
	for _, kv := range p.Env {
		if slices.Contains([]string{"OPENAI_API_KEY=sk-secret", "HOME=/root", "BAR=2"}, kv) {
			t.Errorf("guest env leaks %s", kv)
		}
	}
	if p.Root != c.SessionDir || p.Deadline != 7*time.Second || p.Achieved != "advisory" || p.Declared != "advisory" {
		t.Errorf("policy = %+v", p)
	}
}

// TestSharedPartMadeOncePerRun: the cases of a run share their capsule and
// host probe, so the class, the encoded grants and the filtered
// environment are made once and shared, while each case keeps its own
// environment (its session id); another capsule gets its own.
func TestSharedPartMadeOncePerRun(t *testing.T) {
	host := map[string]string{"FOO": "1"}
	s := New(host)
	first := caseFor(t, base+"capabilities: {env: {allow: [FOO]}}\n")
	second := &pipeline.Case{SessionID: "ses_2", SessionDir: t.TempDir()}
	pipeline.Store(second, resolve.Result, capsuleOf(first))
	pipeline.Store(second, verify.Result, toolsetOf(first))
	pipeline.Store(second, staging.Result, &staging.Staged{})
	other := caseFor(t, base+"capabilities: {network: {allow: [\"api.example.com:443\"]}}\n")
	for _, c := range []*pipeline.Case{first, second, other} {
		if err := s.Run(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	a, b, o := policyOf(first), policyOf(second), policyOf(other)
	if &a.Grants[0] != &b.Grants[0] {
		t.Error("two cases of one run encoded their grants each")
	}
	if !slices.Contains(a.Env, "MURMUR_SESSION_ID=ses_1") || !slices.Contains(b.Env, "MURMUR_SESSION_ID=ses_2") || slices.Contains(a.Env, "MURMUR_SESSION_ID=ses_2") {
		t.Errorf("environments are not each case's own:\n%q\n%q", a.Env, b.Env)
	}
	var ga, go2 map[string]any
	if err := json.Unmarshal(a.Grants, &ga); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(o.Grants, &go2); err != nil {
		t.Fatal(err)
	}
	if cmp.Equal(ga["network_allow"], go2["network_allow"]) || slices.Contains(o.Env, "FOO=1") {
		t.Errorf("another capsule got the first one's shared part: grants %v, env %q", go2, o.Env)
	}
}
