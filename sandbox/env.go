package sandbox

import (
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
