package capsule

import (
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// codesOf lists the refusals' codes.
func codesOf(errs []*errcode.Error) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Code)
	}
	return out
}

// refusalManifest parses a capsule whose driver entry and network grants
// are the test's.
func refusalManifest(t *testing.T, artifacts, capabilities, endpoint string) *Manifest {
	t.Helper()
	yaml := "name: c\nversion: 0.1.0\n" + artifacts + capabilities +
		"inference:\n  endpoint: " + endpoint + "\n  model: m\n  driver:\n    artifact: murmur-driver-anthropic\n"
	m, err := ParseManifest("murmur.yaml", []byte(yaml), nil)
	if err != nil {
		t.Fatalf("ParseManifest: %v\n%s", errcode.Format(err), yaml)
	}
	return m
}

const declaredDriver = "artifacts:\n  - name: murmur-driver-anthropic\n    version: 0.2.0\n    runtime: driver\n"

// agent.rs: a driver with no tools/<driver>/ (no artifacts: entry stages
// one) is RuntimeError::DriverNotInstalled, E-RUN-006 with murmur's text
// and hint, murmur's words first and the place in murmur.yaml after.
func TestMurmur_DriverNotInstalled(t *testing.T) {
	m := refusalManifest(t, "", "capabilities:\n  network:\n    allow: [api.anthropic.com]\n", "https://api.anthropic.com")
	errs := m.MurmurInferenceRefusals()
	if len(errs) != 1 || !errcode.Is(errs[0], errcode.RunDriverAbsent) {
		t.Fatalf("refusals = %v, want one %s", codesOf(errs), errcode.RunDriverAbsent)
	}
	got := errcode.Format(errs[0])
	for _, want := range []string{
		"error[E-RUN-006]: murmur.yaml: inference driver 'murmur-driver-anthropic' is not installed in the local tool registry (murmur.yaml:10:15: ",
		"so mur eval run fails every case)",
		"\n  hint: declare the driver artifact in murmur.yaml artifacts: and run `mur run` to install it, or run murmur-eval with --driver builtin to answer with its built-in provider (murmur-driver-anthropic or -openai)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("refusal\n%s\ndoes not hold %q", got, want)
		}
	}
	// Declared under any runtime, the driver is staged as tools/<name>/.
	m = refusalManifest(t, declaredDriver, "capabilities:\n  network:\n    allow: [api.anthropic.com]\n", "https://api.anthropic.com")
	if errs := m.MurmurInferenceRefusals(); len(errs) != 0 {
		t.Errorf("declared driver: refusals %v, want none", codesOf(errs))
	}
}

// runtime.rs NetworkPolicyHooks::send_request: the driver's request to the
// endpoint is denied unless a network.allow rule matches its host exactly,
// and its scheme and port where the rule has them (murmur-formats.md
// §5.4); a driver entry's own network block narrows the capsule's (§5.7).
func TestMurmur_NetworkPolicyHooks_send_request(t *testing.T) {
	caps := func(entries string) string { return "capabilities:\n  network:\n    allow: " + entries + "\n" }
	tests := []struct {
		name, artifacts, caps, endpoint string
		denied                          bool
	}{
		{"no network block", declaredDriver, "", "https://api.anthropic.com", true},
		{"empty allow", declaredDriver, caps("[]"), "https://api.anthropic.com", true},
		{"bare host", declaredDriver, caps("[api.anthropic.com]"), "https://api.anthropic.com", false},
		{"bare host, upper case", declaredDriver, caps("[API.Anthropic.COM]"), "https://api.anthropic.com/v1", false},
		{"URL entry", declaredDriver, caps("['https://api.anthropic.com/']"), "https://api.anthropic.com", false},
		{"URL entry, other scheme", declaredDriver, caps("['http://localhost:8080']"), "https://localhost:8080", true},
		{"URL entry, default port", declaredDriver, caps("['https://api.anthropic.com:443']"), "https://api.anthropic.com", false},
		{"URL entry, other port", declaredDriver, caps("['http://127.0.0.1:8080']"), "http://127.0.0.1:9090", true},
		{"URL entry, same port", declaredDriver, caps("['http://127.0.0.1:8080']"), "http://127.0.0.1:8080/v1", false},
		{"host:port pins the port", declaredDriver, caps("['api.anthropic.com:8443']"), "https://api.anthropic.com", true},
		{"host:80 is any port", declaredDriver, caps("['api.anthropic.com:80']"), "https://api.anthropic.com", false},
		{"host:0 pins port 0", declaredDriver, caps("['api.anthropic.com:0']"), "https://api.anthropic.com", true},
		{"subdomain is not the host", declaredDriver, caps("[anthropic.com]"), "https://api.anthropic.com", true},
		{"no wildcard", declaredDriver, caps("['*.anthropic.com']"), "https://api.anthropic.com", true},
		{"an unparseable entry matches nothing", declaredDriver, caps("['https://api.anthropic.com/v1']"), "https://api.anthropic.com", true},
		{"driver narrows to the host", declaredDriver + "    capabilities:\n      network:\n        allow: ['https://api.anthropic.com']\n",
			caps("[api.anthropic.com]"), "https://api.anthropic.com", false},
		{"driver's own allow: []", declaredDriver + "    capabilities:\n      network:\n        allow: []\n",
			caps("[api.anthropic.com]"), "https://api.anthropic.com", true},
		{"driver entry outside the ceiling is dropped", declaredDriver + "    capabilities:\n      network:\n        allow: [api.anthropic.com]\n",
			caps("['https://api.anthropic.com']"), "https://api.anthropic.com", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := refusalManifest(t, tt.artifacts, tt.caps, tt.endpoint).MurmurInferenceRefusals()
			if denied := len(errs) == 1 && errcode.Is(errs[0], errcode.MurmurEndpointDenied); denied != tt.denied || (!tt.denied && len(errs) != 0) {
				t.Fatalf("refusals = %v, want denied %v", codesOf(errs), tt.denied)
			}
			if !tt.denied {
				return
			}
			got := errcode.Format(errs[0])
			for _, want := range []string{
				"error[E-EVL-081]: murmur.yaml: driver: failed to dispatch HTTP request: ErrorCode::HttpRequestDenied (murmur.yaml:",
				"\n  hint: add " + strings.TrimSuffix(tt.endpoint, "/v1") + " to capabilities.network.allow",
			} {
				if !strings.Contains(got, want) {
					t.Errorf("refusal\n%s\ndoes not hold %q", got, want)
				}
			}
		})
	}
}

// An undeclared driver and a denied endpoint are both reported; a process
// capsule and a script capsule have neither.
func TestMurmurInferenceRefusalsTransports(t *testing.T) {
	m := refusalManifest(t, "", "", "https://api.anthropic.com")
	if got := codesOf(m.MurmurInferenceRefusals()); len(got) != 2 || got[0] != errcode.RunDriverAbsent || got[1] != errcode.MurmurEndpointDenied {
		t.Errorf("refusals = %v, want E-RUN-006 then E-EVL-081", got)
	}
	for _, yaml := range []string{
		"name: c\nversion: 0.1.0\ninference:\n  transport: process\n  command: claude\n",
		"name: c\nversion: 0.1.0\n",
	} {
		m, err := ParseManifest("murmur.yaml", []byte(yaml), nil)
		if err != nil {
			t.Fatal(errcode.Format(err))
		}
		if errs := m.MurmurInferenceRefusals(); len(errs) != 0 {
			t.Errorf("%q: refusals %v, want none", yaml, codesOf(errs))
		}
	}
}

// runtime.rs is_queue_sleep: task_acceptance queue with after_task sleep
// waits on the A2A queue with no timeout once task.md ran, so mur eval
// run never finishes the case; every other lifecycle ends by itself.
func TestMurmur_queue_sleep_waits_without_timeout(t *testing.T) {
	tests := []struct {
		lifecycle string
		hangs     bool
	}{
		{"", false},
		{"lifecycle:\n  task_acceptance: queue\n", false},
		{"lifecycle:\n  after_task: sleep\n", false},
		{"lifecycle:\n  task_acceptance: none\n  after_task: sleep\n", false},
		{"lifecycle:\n  task_acceptance: queue\n  after_task: exit\n", false},
		{"lifecycle:\n  task_acceptance: queue\n  after_task: sleep\n", true},
	}
	for _, tt := range tests {
		m, err := ParseManifest("murmur.yaml", []byte("name: c\nversion: 0.1.0\n"+tt.lifecycle), nil)
		if err != nil {
			t.Fatal(errcode.Format(err))
		}
		e := m.MurmurLifecycleRefusal()
		if (e != nil) != tt.hangs {
			t.Errorf("%q: refusal %v, want hang %v", tt.lifecycle, e, tt.hangs)
			continue
		}
		if e == nil {
			continue
		}
		got := errcode.Format(e)
		if want := "error[E-EVL-080]: murmur.yaml: lifecycle task_acceptance 'queue' with after_task 'sleep' waits for the next A2A task forever after task.md (murmur.yaml:5:15): mur eval run would never finish the first case"; !strings.Contains(got, want) {
			t.Errorf("refusal\n%s\ndoes not hold %q", got, want)
		}
	}
}

// bootstrap.rs::bootstrap_missing_driver_artifact_fails_before_launch: a
// driver that artifacts: declares but no store holds stops the run before
// launch. murmur's `mur run` says E-RUN-008 "missing artifacts:"; murmur-eval
// says E-REG-001 as `mur eval run`'s staging does, naming the driver
// (RATIONALE "Why is a missing artifact E-REG-001 and not E-RUN-008?").
func TestMurmur_bootstrap_missing_driver_artifact_fails_before_launch(t *testing.T) {
	project := t.TempDir()
	putStore(t, ProjectStore(project), "jsonl-line-count", "0.1.0", "", "jsonl-line-count", "j")
	m := &Manifest{Artifacts: []ArtifactDecl{
		{Name: "jsonl-line-count", Version: "0.1.0", Runtime: RuntimeTool},
		{Name: "murmur-driver-anthropic", Version: "0.2.0", Runtime: RuntimeDriver},
	}}
	_, err := ResolveAll(m, nil, NewRegistry(project, ""), "linux-x86_64")
	if !errcode.Is(err, errcode.RegistryNotFound) || !strings.Contains(err.Error(), "murmur-driver-anthropic") {
		t.Fatalf("ResolveAll = %v, want %s naming the driver", err, errcode.RegistryNotFound)
	}
}
