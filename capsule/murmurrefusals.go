package capsule

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// MurmurInferenceRefusals returns why `mur eval run` could not get a model
// answer for this capsule, though murmur-eval can (murmur-eval speaks the
// model API itself and runs no driver artifact): an inference driver no
// artifacts: entry declares (murmur's E-RUN-006, its text and hint), and an
// endpoint capabilities.network.allow does not cover (murmur's driver is
// denied its first request, and every session ends failed with the
// driver's text; murmur has no code for it, murmur-eval's is E-EVL-081).
// Each message starts with murmur's words after "murmur.yaml: ", the
// position in the file after them. Only transport: http has either.
func (m *Manifest) MurmurInferenceRefusals() []*errcode.Error {
	inf := m.Inference
	if inf == nil || inf.Transport != TransportHTTP {
		return nil
	}
	var out []*errcode.Error
	drv := m.artifact(inf.DriverArtifact)
	if drv == nil {
		out = append(out, errcode.New(errcode.RunDriverAbsent,
			"inference driver '%s' is not installed in the local tool registry (%s: inference.driver.artifact names no artifacts: entry; murmur-eval does not run the driver, mur eval run fails every case here)",
			inf.DriverArtifact, m.at.driver).At(ManifestFile).
			WithHint("declare the driver artifact in murmur.yaml artifacts: and run `mur run` to install it"))
	}
	rules := m.driverNetworkRules(drv)
	if target, ok := endpointTarget(inf.Endpoint); ok && !target.allowedBy(rules) {
		out = append(out, errcode.New(errcode.MurmurEndpointDenied,
			"driver: failed to dispatch HTTP request: ErrorCode::HttpRequestDenied (%s: inference.endpoint %s is not covered by the driver's network.allow, so under mur eval run every session ends failed at its first turn)",
			m.at.endpoint, inf.Endpoint).At(ManifestFile).
			WithHint("add %s to capabilities.network.allow in murmur.yaml (and to the driver artifact's own network.allow if it declares one)", target.entry()))
	}
	return out
}

// MurmurLifecycleRefusal returns why `mur eval run` would never finish a
// case of this capsule, or nil: lifecycle task_acceptance queue with
// after_task sleep runs task.md and then waits for A2A tasks without end
// (murmur-session.md §1.2), so the session never ends and no eval.jsonl
// is read. murmur has no code for a hang; murmur-eval's is E-EVL-080.
// murmur-eval runs every case as one task and never waits.
func (m *Manifest) MurmurLifecycleRefusal() *errcode.Error {
	l := m.Lifecycle
	if l.TaskAcceptance != TaskAcceptanceQueue || l.AfterTask != AfterTaskSleep {
		return nil
	}
	return errcode.New(errcode.MurmurWouldHang,
		"lifecycle task_acceptance 'queue' with after_task 'sleep' waits for the next A2A task forever after task.md (%s): mur eval run would never finish the first case; murmur-eval runs each case as one task",
		m.at.afterTask).At(ManifestFile).
		WithHint("use after_task: exit (or task_acceptance: single) in the capsule that is evaluated")
}

// artifact returns the artifacts: entry named name, or nil. Any runtime
// counts: murmur looks for tools/<name>/, which staging makes for each.
func (m *Manifest) artifact(name string) *ArtifactDecl {
	for i := range m.Artifacts {
		if m.Artifacts[i].Name == name {
			return &m.Artifacts[i]
		}
	}
	return nil
}

// driverNetworkRules is what the driver may reach (§5.7, inherit and
// clamp): the capsule's capabilities.network.allow, or, when the driver's
// entry declares its own network block, those of its entries some capsule
// rule covers. Entries that do not parse are left out: refusing them is
// E-CAP-001's work at staging.
func (m *Manifest) driverNetworkRules(drv *ArtifactDecl) []allowRule {
	var ceiling []allowRule
	if m.Capabilities.Network != nil {
		ceiling = parseAllowRules(m.Capabilities.Network.Allow)
	}
	if drv == nil || drv.Capabilities == nil || drv.Capabilities.Network == nil {
		return ceiling
	}
	var kept []allowRule
	for _, r := range parseAllowRules(drv.Capabilities.Network.Allow) {
		for _, c := range ceiling {
			if c.covers(r) {
				kept = append(kept, r)
				break
			}
		}
	}
	return kept
}

// allowRule is one network.allow entry as murmur matches it (§5.4): a
// scheme ("" for any), a lowercased host, a port (anyPort for any).
type allowRule struct {
	scheme, host string
	port         int
}

// anyPort is a rule's port when it matches every port.
const anyPort = -1

// parseAllowRules parses the entries that murmur would accept.
func parseAllowRules(entries []string) []allowRule {
	var out []allowRule
	for _, e := range entries {
		if r, ok := parseAllowRule(e); ok {
			out = append(out, r)
		}
	}
	return out
}

// parseAllowRule parses one entry: with "://" a URL (http or https, no
// path but "/", no query or fragment; the port explicit or the scheme's),
// otherwise host or host:port, any scheme, where a port equal to http's
// default 80 means any port (the URL library murmur uses drops it).
func parseAllowRule(entry string) (allowRule, bool) {
	entry = strings.TrimSpace(entry)
	if entry == "" {
		return allowRule{}, false
	}
	if strings.Contains(entry, "://") {
		u, err := url.Parse(entry)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.User != nil {
			return allowRule{}, false
		}
		port, ok := portOf(u)
		return allowRule{scheme: u.Scheme, host: strings.ToLower(u.Hostname()), port: port}, ok
	}
	u, err := url.Parse("http://" + entry)
	if err != nil || u.Hostname() == "" || u.Path != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.User != nil {
		return allowRule{}, false
	}
	r := allowRule{host: strings.ToLower(u.Hostname()), port: anyPort}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n > 65535 {
			return allowRule{}, false
		}
		if n != 80 {
			r.port = n
		}
	}
	return r, true
}

// portOf is u's explicit port or its scheme's default.
func portOf(u *url.URL) (int, bool) {
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		return n, err == nil && n <= 65535
	}
	if u.Scheme == "https" {
		return 443, true
	}
	return 80, true
}

// covers reports whether narrower fits under r (§5.4's narrowing check):
// the same host, and r's scheme and port, where r has them.
func (r allowRule) covers(narrower allowRule) bool {
	return r.host == narrower.host &&
		(r.scheme == "" || r.scheme == narrower.scheme) &&
		(r.port == anyPort || r.port == narrower.port)
}

// requestTarget is where a driver's request to the endpoint goes.
type requestTarget struct {
	scheme, host string
	port         int
}

// endpointTarget is the target of a request to endpoint (the manifest
// parser has checked it is an http or https URL).
func endpointTarget(endpoint string) (requestTarget, bool) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Hostname() == "" {
		return requestTarget{}, false
	}
	u.Scheme = strings.ToLower(u.Scheme)
	port, ok := portOf(u)
	return requestTarget{scheme: u.Scheme, host: strings.ToLower(u.Hostname()), port: port}, ok
}

// allowedBy reports whether some rule matches t: the host exactly (no
// wildcards, no subdomains), the scheme and port where the rule has them.
func (t requestTarget) allowedBy(rules []allowRule) bool {
	for _, r := range rules {
		if r.host == t.host && (r.scheme == "" || r.scheme == t.scheme) && (r.port == anyPort || r.port == t.port) {
			return true
		}
	}
	return false
}

// entry is the URL allow entry that admits t.
func (t requestTarget) entry() string {
	host := t.host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if (t.scheme == "https" && t.port == 443) || (t.scheme == "http" && t.port == 80) {
		return fmt.Sprintf("%s://%s", t.scheme, host)
	}
	return fmt.Sprintf("%s://%s:%d", t.scheme, host, t.port)
}
