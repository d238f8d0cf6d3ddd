package httpapi

import (
	"net/url"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// JoinURL appends an API path to an endpoint, as murmur's drivers append
// theirs: the endpoint's own path is kept as a prefix (a proxy's
// /anthropic, a server's /v1), its trailing slashes dropped, and nothing
// else is rewritten (https://api.openai.com/v1 + /chat/completions). Its
// query is kept after the joined path. A path from driver.config
// (override) replaces path.
func JoinURL(endpoint, path, override string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(endpoint))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errcode.New(errcode.ProviderDriver, "inference.endpoint %q is not an http(s) URL", endpoint)
	}
	if override != "" {
		path = "/" + strings.TrimLeft(override, "/")
	}
	u.Path = strings.TrimRight(u.Path, "/") + path
	u.RawPath = ""
	return u.String(), nil
}
