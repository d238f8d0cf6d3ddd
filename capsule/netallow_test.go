package capsule

import (
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestParseAllowEntry: murmur's parser (network_policy.rs), entry by entry:
// the rule it makes, or E-CAP-001 with murmur's reason.
func TestParseAllowEntry(t *testing.T) {
	tests := []struct {
		entry  string
		want   AllowRule
		reason string // "" when the entry parses
	}{
		{"api.anthropic.com", AllowRule{"", "api.anthropic.com", AnyPort}, ""},
		{"  API.Example.COM  ", AllowRule{"", "api.example.com", AnyPort}, ""},
		{"example.com:443", AllowRule{"", "example.com", 443}, ""},
		{"example.com:80", AllowRule{"", "example.com", AnyPort}, ""}, // murmur's URL library drops http's default port
		{"example.com:8080", AllowRule{"", "example.com", 8080}, ""},
		{"example.com/", AllowRule{"", "example.com", AnyPort}, ""},
		{"127.0.0.1:9000", AllowRule{"", "127.0.0.1", 9000}, ""},
		{"https://api.openai.com", AllowRule{"https", "api.openai.com", 443}, ""},
		{"https://api.openai.com/", AllowRule{"https", "api.openai.com", 443}, ""},
		{"HTTPS://api.openai.com:8443", AllowRule{"https", "api.openai.com", 8443}, ""},
		{"http://localhost", AllowRule{"http", "localhost", 80}, ""},
		{"https://[::1]:9", AllowRule{"https", "::1", 9}, ""},
		{"", AllowRule{}, "entry must not be empty"},
		{"   ", AllowRule{}, "entry must not be empty"},
		{"ftp://example.com", AllowRule{}, "unsupported URL scheme 'ftp' (expected http or https)"},
		{"wss://example.com", AllowRule{}, "unsupported URL scheme 'wss' (expected http or https)"},
		{"https://example.com/v1", AllowRule{}, "URL allow entries must not include path, query, or fragment"},
		{"https://example.com?x=1", AllowRule{}, "URL allow entries must not include path, query, or fragment"},
		{"https://example.com?", AllowRule{}, "URL allow entries must not include path, query, or fragment"},
		{"https://example.com#top", AllowRule{}, "URL allow entries must not include path, query, or fragment"},
		{"https://", AllowRule{}, "invalid URL: empty host"},
		{"https://example.com:99999", AllowRule{}, "invalid URL: invalid port number"},
		{"https://example.com:port", AllowRule{}, "invalid URL: invalid port number"},
		{"https://exa mple.com", AllowRule{}, "invalid URL: invalid domain character"},
		{"example.com/v1", AllowRule{}, "host allow entries must be host or host:port only"},
		{"example.com?q", AllowRule{}, "host allow entries must be host or host:port only"},
		{"example.com:99999", AllowRule{}, "invalid host allow entry: invalid port number"},
		{":8080", AllowRule{}, "invalid host allow entry: empty host"},
		{"exa mple.com", AllowRule{}, "invalid host allow entry: invalid domain character"},
	}
	for _, tt := range tests {
		got, err := ParseAllowEntry(tt.entry)
		if tt.reason == "" {
			if err != nil || got != tt.want {
				t.Errorf("ParseAllowEntry(%q) = %+v, %v; want %+v", tt.entry, got, err, tt.want)
			}
			continue
		}
		want := "invalid network allow entry '" + tt.entry + "': " + tt.reason
		if !errcode.Is(err, errcode.CapNetworkEntry) || err.(*errcode.Error).Msg != want {
			t.Errorf("ParseAllowEntry(%q) = %+v, %v; want %s %q", tt.entry, got, err, errcode.CapNetworkEntry, want)
		}
	}
}

// TestAllowMatchAndCover: exact hosts, scheme and port where the rule has
// them; a bare host never fits under a scheme-bound ceiling.
func TestAllowMatchAndCover(t *testing.T) {
	rule := func(e string) AllowRule {
		r, err := ParseAllowEntry(e)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	matches := []struct {
		rule, url string
		want      bool
	}{
		{"api.example.com", "https://api.example.com/v1/messages", true},
		{"api.example.com", "http://api.example.com:8080/", true},
		{"api.example.com", "https://sub.api.example.com/", false},
		{"api.example.com", "https://example.com/", false},
		{"https://api.example.com", "https://API.example.com/x", true},
		{"https://api.example.com", "http://api.example.com/", false},
		{"https://api.example.com", "https://api.example.com:8443/", false},
		{"example.com:443", "https://example.com/", true},
		{"example.com:443", "http://example.com/", false},
		{"http://127.0.0.1:9000", "http://127.0.0.1:9000/v1", true},
	}
	for _, m := range matches {
		target, ok := TargetOf(m.url)
		if !ok {
			t.Fatalf("TargetOf(%q) failed", m.url)
		}
		if got := rule(m.rule).Matches(target); got != m.want {
			t.Errorf("%q matches %q = %v, want %v", m.rule, m.url, got, m.want)
		}
	}
	covers := []struct {
		ceiling, narrower string
		want              bool
	}{
		{"example.com", "https://example.com", true},
		{"example.com", "example.com:8080", true},
		{"https://example.com", "example.com", false},
		{"https://example.com", "https://example.com", true},
		{"https://example.com", "http://example.com", false},
		{"example.com:443", "https://example.com", true},
		{"example.com:443", "example.com", false},
		{"example.com", "other.com", false},
	}
	for _, c := range covers {
		if got := rule(c.ceiling).Covers(rule(c.narrower)); got != c.want {
			t.Errorf("%q covers %q = %v, want %v", c.ceiling, c.narrower, got, c.want)
		}
	}
}

// TestCheckNetworkAllow: every list of the manifest is parsed at staging;
// the first bad entry is E-CAP-001 naming where it is; per-artifact
// entries outside the ceiling are dropped with W-SEC-007, hooks get only
// their own.
func TestCheckNetworkAllow(t *testing.T) {
	parse := func(t *testing.T, yaml string) *Manifest {
		t.Helper()
		m, err := ParseManifest("murmur.yaml", []byte(yaml), nil)
		if err != nil {
			t.Fatal(errcode.Format(err))
		}
		return m
	}
	head := "name: c\nversion: 0.1.0\n"
	bad := []struct {
		name, yaml, where string
	}{
		{"capsule-wide", head + "capabilities:\n  network:\n    allow: [api.example.com, \"ftp://example.com\"]\n", "capabilities.network.allow[1]"},
		{"empty entry", head + "capabilities:\n  network:\n    allow: [\"\"]\n", "capabilities.network.allow[0]"},
		{"per artifact", head + "capabilities:\n  network:\n    allow: [example.com]\nartifacts:\n  - name: t\n    version: 0.1.0\n    runtime: tool\n    capabilities:\n      network:\n        allow: [\"https://example.com/v1\"]\n",
			"artifacts[0] 't' capabilities.network.allow[0]"},
		{"hook", head + "artifacts:\n  - name: h\n    version: 0.1.0\n    runtime: hook\n    capabilities:\n      network:\n        allow: [\"https://\"]\n",
			"artifacts[0] 'h' capabilities.network.allow[0]"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			err := parse(t, tt.yaml).CheckNetworkAllow()
			if !errcode.Is(err, errcode.CapNetworkEntry) || !strings.Contains(err.Error(), tt.where) ||
				!strings.HasPrefix(err.Error(), "murmur.yaml: invalid network allow entry '") {
				t.Errorf("CheckNetworkAllow = %v, want %s at %s", err, errcode.CapNetworkEntry, tt.where)
			}
		})
	}

	m := parse(t, head+`capabilities:
  network:
    allow: ["https://api.example.com", other.com]
artifacts:
  - name: wide
    version: 0.1.0
    runtime: tool
    capabilities:
      network:
        allow: [api.example.com, "https://other.com", "https://api.example.com"]
  - name: inherits
    version: 0.1.0
    runtime: driver
  - name: hook
    version: 0.1.0
    runtime: hook
    capabilities:
      network:
        allow: [hooks.example.com]
  - name: quiet-hook
    version: 0.1.0
    runtime: hook
`)
	if err := m.CheckNetworkAllow(); err != nil {
		t.Fatal(err)
	}
	rules, dropped := m.NetworkRules(&m.Artifacts[0])
	if len(rules) != 2 || rules[0].Host != "other.com" || rules[1].Host != "api.example.com" || len(dropped) != 1 || dropped[0] != "api.example.com" {
		t.Errorf("clamped tool: %+v, dropped %v; want other.com and https://api.example.com kept, the bare host dropped", rules, dropped)
	}
	if rules, _ := m.NetworkRules(&m.Artifacts[1]); len(rules) != 2 {
		t.Errorf("driver without a block: %+v, want the ceiling", rules)
	}
	if rules, _ := m.NetworkRules(&m.Artifacts[2]); len(rules) != 1 || rules[0].Host != "hooks.example.com" {
		t.Errorf("hook: %+v, want exactly its own (hooks are not clamped to the ceiling)", rules)
	}
	if rules, _ := m.NetworkRules(&m.Artifacts[3]); len(rules) != 0 {
		t.Errorf("hook without a block: %+v, want none", rules)
	}
	w := m.NetworkWarnings()
	if len(w) != 1 || !strings.HasPrefix(w[0], "warning[W-SEC-007]: artifact 'wide' declares") || !strings.Contains(w[0], "(api.example.com)") {
		t.Errorf("warnings = %q", w)
	}
}

// FuzzParseAllowEntry: any entry either parses into a rule with a
// lowercased host and a port in range that covers itself and admits the
// request it names, or is E-CAP-001 — never a panic.
func FuzzParseAllowEntry(f *testing.F) {
	for _, s := range []string{"api.anthropic.com", "API.x:443", "x:80", "https://h/", "http://127.0.0.1:8080", "https://[::1]:9", "*.x", "ftp://h", "h/p", "https://h?q", "", "https://", "a:b:c", "[::1", "http://%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, entry string) {
		r, err := ParseAllowEntry(entry)
		if err != nil {
			if !errcode.Is(err, errcode.CapNetworkEntry) {
				t.Fatalf("ParseAllowEntry(%q): %v, not %s", entry, err, errcode.CapNetworkEntry)
			}
			return
		}
		if r.Host == "" || r.Host != strings.ToLower(r.Host) || r.Port < AnyPort || r.Port > 65535 || (r.Scheme != "" && r.Scheme != "http" && r.Scheme != "https") {
			t.Fatalf("ParseAllowEntry(%q) = %+v", entry, r)
		}
		if !r.Covers(r) {
			t.Fatalf("rule %+v of %q does not cover itself", r, entry)
		}
		if r.Scheme != "" && r.Port != AnyPort {
			target := Target(r)
			if back, ok := TargetOf(target.Entry() + "/v1"); ok && !r.Matches(back) {
				t.Fatalf("rule %+v of %q does not admit %s", r, entry, target.Entry())
			}
		}
	})
}
