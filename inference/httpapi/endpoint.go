package httpapi

import (
	"net/url"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// JoinURL appends an API path to an endpoint. The endpoint's own path is
// kept as a prefix (a proxy's /anthropic, a server's /api), and so is its
// query. When the endpoint's path already ends in /v1 and path starts with
// /v1/, the /v1 is not repeated: https://api.openai.com/v1 and
// https://api.openai.com both reach /v1/chat/completions. A path from
// driver.config (override) is appended as given, without that rule.
func JoinURL(endpoint, path, override string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(endpoint))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errcode.New(errcode.ProviderDriver, "inference.endpoint %q is not an http(s) URL", endpoint)
	}
	base := strings.TrimRight(u.Path, "/")
	switch {
	case override != "":
		path = "/" + strings.TrimLeft(override, "/")
	case strings.HasSuffix(base, "/v1") && strings.HasPrefix(path, "/v1/"):
		path = strings.TrimPrefix(path, "/v1")
	}
	u.Path = base + path
	u.RawPath = ""
	return u.String(), nil
}
