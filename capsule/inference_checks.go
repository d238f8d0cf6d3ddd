package capsule

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// envRef matches the one interpolation murmur supports: a whole value `${NAME}`.
var envRef = regexp.MustCompile(`^\$\{([A-Z_][A-Z0-9_]*)\}$`)

// resolveAPIKey resolves a trimmed api_key that is exactly `${NAME}`; any other
// value (`${lower}`, `Bearer ${X}`, `$X`) is a literal.
func resolveAPIKey(d *decoder, n *yaml.Node, key string, lookupEnv func(string) (string, bool)) (string, error) {
	m := envRef.FindStringSubmatch(key)
	if m == nil {
		return key, nil
	}
	v, ok := lookupEnv(m[1])
	if !ok {
		return "", errcode.New(errcode.ManifestInvalid,
			"inference.api_key references %s but the environment variable is not set", key).
			At(d.where(n)).WithHint("set %s in the environment or in the project's .env file", m[1])
	}
	return v, nil
}

// checkEndpoint applies murmur's endpoint rule and returns its message, or "".
// Like murmur, an IPv6 host keeps its brackets and so is never loopback.
func checkEndpoint(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err == nil && u.Scheme == "" {
		err = fmt.Errorf("relative URL without a base")
	}
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host == "" {
		err = fmt.Errorf("empty host")
	}
	if err != nil {
		return fmt.Sprintf("failed to parse '%s' as a URL: %v", endpoint, err)
	}
	switch u.Scheme {
	case "https":
		return ""
	case "http":
		host := strings.ToLower(u.Hostname())
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.To4() != nil && ip.IsLoopback()) {
			return ""
		}
		return fmt.Sprintf("'%s' uses plain http:// with non-loopback host '%s' — use https:// for remote endpoints, or http://localhost or a loopback IP literal for local inference", endpoint, host)
	}
	return fmt.Sprintf("unsupported scheme '%s' in '%s' — expected http or https", u.Scheme, endpoint)
}

// checkPromptArtifact requires inference.system_prompt_artifact to name a
// declared artifact whose payload may be bound as the system prompt.
func checkPromptArtifact(d *decoder, r *rawInference, m *Manifest) error {
	if m.Inference == nil || m.Inference.SystemPromptArtifact == "" {
		return nil
	}
	name := m.Inference.SystemPromptArtifact
	for _, a := range m.Artifacts {
		if a.Name != name {
			continue
		}
		if a.PromptPayload {
			return nil
		}
		return errcode.New(errcode.ManifestInvalid,
			"invalid inference config for 'inference.system_prompt_artifact': artifact '%s' (runtime: %s) does not declare 'prompt_payload: true', which system_prompt_artifact requires",
			name, a.Runtime).At(d.where(r.systemPromptArt.node))
	}
	return didYouMean(errcode.New(errcode.ManifestInvalid,
		"invalid inference config for 'inference.system_prompt_artifact': artifact '%s' is not declared in artifacts:",
		name).At(d.where(r.systemPromptArt.node)), name, m.artifactNames(), "declared in artifacts:")
}
