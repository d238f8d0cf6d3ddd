package sandbox

import (
	"maps"
	"slices"
	"strings"
)

// CredentialPatterns returns murmur's default credential patterns
// (murmur-formats.md §5.6). Variables matching any of them never reach a
// guest. The slice is a fresh copy.
func CredentialPatterns() []string {
	return []string{
		"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GOOGLE_API_KEY", "HUGGING_FACE_HUB_TOKEN",
		"NEXUS_API_KEY", "AWS_*", "GITHUB_TOKEN", "GH_TOKEN", "DOCKER_*", "KUBECONFIG",
		"NPM_TOKEN", "PYPI_TOKEN", "CARGO_REGISTRY_TOKEN", "*_API_KEY",
	}
}

// MatchEnvPattern reports whether the variable name matches pattern, with
// murmur's case-sensitive rules: "*X*" contains X, "*X" ends with X, "X*"
// starts with X, anything else is an exact name.
func MatchEnvPattern(pattern, name string) bool {
	switch {
	case len(pattern) >= 2 && pattern[0] == '*' && pattern[len(pattern)-1] == '*':
		return strings.Contains(name, pattern[1:len(pattern)-1])
	case strings.HasPrefix(pattern, "*"):
		return strings.HasSuffix(name, pattern[1:])
	case strings.HasSuffix(pattern, "*"):
		return strings.HasPrefix(name, pattern[:len(pattern)-1])
	}
	return name == pattern
}

// CredentialLike reports whether name matches one of murmur's credential
// patterns.
func CredentialLike(name string) bool {
	return matchesAny(CredentialPatterns(), name)
}

// FilterEnv builds a guest environment from host variables the way murmur
// does for WASM guests: each name in allow (exact names) that is set in host,
// minus credential-like names and names matching a strip pattern, as
// "K=V" entries sorted by name. Names not set in host are silently omitted. The runtime's
// own MURMUR_* values are the caller's to append afterwards.
func FilterEnv(host map[string]string, allow, strip []string) []string {
	var env []string
	for _, name := range slices.Compact(slices.Sorted(slices.Values(allow))) {
		v, ok := host[name]
		if !ok || CredentialLike(name) || matchesAny(strip, name) {
			continue
		}
		env = append(env, name+"="+v)
	}
	return env
}

func matchesAny(patterns []string, name string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return MatchEnvPattern(p, name) })
}

// secretInsideMin is the shortest secret also looked for inside longer
// values: a value that merely contains a key of at least this many bytes
// carries the key all the same (a URL with ?key=, "Bearer <key>", a
// copy with a prefix). A shorter secret is matched only as the whole
// value, since a few bytes occur by chance in ordinary values
// (RATIONALE.md, "Why are environments filtered by value too?").
const secretInsideMin = 8

// Secrets is the set of credential values murmur-eval resolved for a run
// (the inference API key, the host's credential variables): no guest
// environment but the driver's may hold one, whatever name it comes
// under. It is built once per run and is safe for concurrent use; the nil
// Secrets holds none.
type Secrets struct {
	values  []string // no duplicates, none empty
	sources []string // what each value is, for a warning; never the value
}

// NewSecrets returns the set of the values given as (source, value)
// pairs: source says what the value is ("inference.api_key", a variable's
// name) and is what Filter reports. Empty values are ignored.
func NewSecrets(pairs ...[2]string) *Secrets {
	s := &Secrets{}
	for _, p := range pairs {
		if p[1] == "" || slices.Contains(s.values, p[1]) {
			continue
		}
		s.values = append(s.values, p[1])
		s.sources = append(s.sources, p[0])
	}
	return s
}

// Len is how many values the set holds.
func (s *Secrets) Len() int {
	if s == nil {
		return 0
	}
	return len(s.values)
}

// Holds reports whether v is one of the secrets, or contains one that is
// at least secretInsideMin bytes long, and names the secret's source.
func (s *Secrets) Holds(v string) (source string, ok bool) {
	if s == nil {
		return "", false
	}
	for i, sec := range s.values {
		if v == sec || (len(sec) >= secretInsideMin && strings.Contains(v, sec)) {
			return s.sources[i], true
		}
	}
	return "", false
}

// Dropped is a variable Filter removed: its name and the source of the
// secret its value held.
type Dropped struct {
	Name, Source string
}

// Filter returns env ("K=V" entries) without the entries whose value
// Holds a secret, and those it removed. It is the one place a guest's or
// subprocess's environment is checked by value; an env with nothing to
// drop is returned as it is.
func (s *Secrets) Filter(env []string) (kept []string, dropped []Dropped) {
	if s.Len() == 0 {
		return env, nil
	}
	kept = env
	for i, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		src, ok := s.Holds(v)
		if !ok {
			if dropped != nil {
				kept = append(kept, kv)
			}
			continue
		}
		if dropped == nil {
			kept = append(make([]string, 0, len(env)-1), env[:i]...)
		}
		dropped = append(dropped, Dropped{Name: k, Source: src})
	}
	return kept, dropped
}

// RunSecrets is the run's Secrets: the resolved inference API key
// (apiKey, "" when the manifest sets none) and the value of every host
// variable whose name is credential-like (CredentialLike) and names a key,
// token, secret or password. The families murmur strips by prefix
// (AWS_*, DOCKER_*) and KUBECONFIG also hold configuration (a region, a
// socket, a path) that ordinary variables may share, so only their
// key-, token-, secret- and password-named members count.
func RunSecrets(host map[string]string, apiKey string) *Secrets {
	pairs := [][2]string{{"inference.api_key", apiKey}}
	for _, name := range slices.Sorted(maps.Keys(host)) {
		if CredentialLike(name) && namesSecret(name) {
			pairs = append(pairs, [2]string{name, host[name]})
		}
	}
	return NewSecrets(pairs...)
}

// namesSecret reports whether a variable's name says its value is secret.
func namesSecret(name string) bool {
	for _, w := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}
