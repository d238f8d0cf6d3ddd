package capsule

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// AllowRule is one capabilities.network.allow entry as murmur matches it
// (murmur-formats.md §5.4): a scheme ("" for any), a lowercased host, and a
// port (AnyPort for any). Hosts match exactly: no wildcards, no subdomains.
type AllowRule struct {
	Scheme string
	Host   string
	Port   int
}

// AnyPort is a rule's Port when it matches every port.
const AnyPort = -1

// ParseAllowEntry parses one network.allow entry as murmur does, or returns
// E-CAP-001 with murmur's text: `invalid network allow entry '<entry>':
// <reason>`. An entry with "://" is a URL (http or https, no path but "/",
// no query or fragment; the port explicit or the scheme's default); any
// other is host or host:port, for any scheme, where port 80 means any port
// (murmur's URL library drops a port equal to http's default).
func ParseAllowEntry(entry string) (AllowRule, error) {
	trimmed := strings.TrimSpace(entry)
	if trimmed == "" {
		return AllowRule{}, allowErr(entry, "entry must not be empty")
	}
	if strings.Contains(trimmed, "://") {
		return parseURLEntry(trimmed)
	}
	return parseHostEntry(trimmed)
}

func allowErr(entry, reason string) *errcode.Error {
	return errcode.New(errcode.CapNetworkEntry, "invalid network allow entry '%s': %s", entry, reason).
		WithHint("write a host (api.example.com), host:port, or an http(s) URL with no path: https://api.example.com")
}

func parseURLEntry(entry string) (AllowRule, error) {
	u, err := url.Parse(entry)
	if err != nil {
		return AllowRule{}, allowErr(entry, "invalid URL: "+urlReason(err))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return AllowRule{}, allowErr(entry, fmt.Sprintf("unsupported URL scheme '%s' (expected http or https)", u.Scheme))
	}
	if (u.Path != "" && u.Path != "/") || u.Opaque != "" || u.RawQuery != "" || u.ForceQuery || strings.Contains(entry, "#") {
		return AllowRule{}, allowErr(entry, "URL allow entries must not include path, query, or fragment")
	}
	if u.Hostname() == "" {
		return AllowRule{}, allowErr(entry, "invalid URL: empty host")
	}
	port, ok := portOf(u)
	if !ok {
		return AllowRule{}, allowErr(entry, "invalid URL: invalid port number")
	}
	return AllowRule{Scheme: u.Scheme, Host: strings.ToLower(u.Hostname()), Port: port}, nil
}

func parseHostEntry(entry string) (AllowRule, error) {
	u, err := url.Parse("http://" + entry)
	if err != nil {
		return AllowRule{}, allowErr(entry, "invalid host allow entry: "+urlReason(err))
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || strings.Contains(entry, "#") {
		return AllowRule{}, allowErr(entry, "host allow entries must be host or host:port only")
	}
	if u.Hostname() == "" {
		return AllowRule{}, allowErr(entry, "invalid host allow entry: empty host")
	}
	r := AllowRule{Host: strings.ToLower(u.Hostname()), Port: AnyPort}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n > 65535 {
			return AllowRule{}, allowErr(entry, "invalid host allow entry: invalid port number")
		}
		if n != 80 {
			r.Port = n
		}
	}
	return r, nil
}

// urlReason turns Go's URL error into the short reason murmur's URL
// library gives for the same input, where the two agree on the input being
// wrong: a bad port, a bad host character; otherwise Go's own words.
func urlReason(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "invalid port"):
		return "invalid port number"
	case strings.Contains(msg, "in host name"), strings.Contains(msg, "invalid character"):
		return "invalid domain character"
	case strings.Contains(msg, "missing ']'"), strings.Contains(msg, "IPv6"):
		return "invalid IPv6 address"
	}
	return msg
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

// Covers reports whether narrower fits under r (§5.4's narrowing check):
// the same host, and r's scheme and port where r has them. A bare host
// never fits under a scheme-bound rule.
func (r AllowRule) Covers(narrower AllowRule) bool {
	return r.Host == narrower.Host &&
		(r.Scheme == "" || r.Scheme == narrower.Scheme) &&
		(r.Port == AnyPort || r.Port == narrower.Port)
}

// Target is where an outgoing request goes: its scheme, lowercased host
// and port (explicit, or the scheme's default).
type Target struct {
	Scheme, Host string
	Port         int
}

// TargetOf is the target of a request to rawURL; ok is false when it has
// no host or an unusable port.
func TargetOf(rawURL string) (Target, bool) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return Target{}, false
	}
	port, ok := portOf(u)
	return Target{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Hostname()), Port: port}, ok
}

// Matches reports whether r admits t: the host exactly, the scheme and
// port where r has them.
func (r AllowRule) Matches(t Target) bool {
	return r.Host == t.Host && (r.Scheme == "" || r.Scheme == t.Scheme) && (r.Port == AnyPort || r.Port == t.Port)
}

// Allowed reports whether some rule admits t.
func Allowed(rules []AllowRule, t Target) bool {
	for _, r := range rules {
		if r.Matches(t) {
			return true
		}
	}
	return false
}

// Entry is t as the network.allow entry that admits exactly it.
func (t Target) Entry() string {
	host := t.Host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if (t.Scheme == "https" && t.Port == 443) || (t.Scheme == "http" && t.Port == 80) {
		return fmt.Sprintf("%s://%s", t.Scheme, host)
	}
	return fmt.Sprintf("%s://%s:%d", t.Scheme, host, t.Port)
}
