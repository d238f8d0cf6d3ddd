// Package anthropic speaks the Anthropic Messages API (POST /v1/messages)
// for the http transport, mapping murmur's canonical request and response
// the way murmur's murmur-driver-anthropic does (murmur-session.md §2.1):
// tool_call ⇄ tool_use, tool messages as user tool_result blocks, system
// only when non-empty, stop reasons end_turn|stop_sequence → end_turn,
// tool_use → tool_call, max_tokens → max_tokens, anything else an error
// response. Responses are not streamed.
package anthropic

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
)

// Defaults murmur's driver uses.
const (
	Version               = "2023-06-01"
	defaultThinkingBudget = 1024
	defaultMaxTokens      = 8192 // murmur's max_tokens default, when neither request nor manifest says
	path                  = "/v1/messages"
)

// Config is the driver.config keys this client honours; others are
// ignored (they may be meant for the WASM driver).
type Config struct {
	Path           string            `json:"path"`              // replaces /v1/messages
	Headers        map[string]string `json:"headers"`           // added to every request
	Version        string            `json:"anthropic_version"` // default 2023-06-01
	BetaFeatures   json.RawMessage   `json:"beta_features"`     // string or list → anthropic-beta
	Thinking       string            `json:"thinking"`          // "enabled" turns extended thinking on
	ThinkingBudget *int              `json:"thinking_budget_tokens"`
	Temperature    *float64          `json:"temperature"`
	TopP           *float64          `json:"top_p"`
	TopK           *int              `json:"top_k"`
}

// API is the Messages API bound to one case's inference config.
type API struct {
	url   string
	inf   inference.Config
	cfg   Config
	betas []string
}

// New binds the Messages API to inf.
func New(inf inference.Config) (*API, error) {
	var cfg Config
	if len(inf.DriverConfig) > 0 {
		dec := json.NewDecoder(bytes.NewReader(inf.DriverConfig))
		if err := dec.Decode(&cfg); err != nil {
			return nil, errcode.Wrap(errcode.ProviderDriver, err, "inference.driver.config for the anthropic API")
		}
	}
	betas, err := betaList(cfg.BetaFeatures)
	if err != nil {
		return nil, err
	}
	url, err := httpapi.JoinURL(inf.Endpoint, path, cfg.Path)
	if err != nil {
		return nil, err
	}
	if cfg.Version == "" {
		cfg.Version = Version
	}
	return &API{url: url, inf: inf, cfg: cfg, betas: betas}, nil
}

func betaList(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, errcode.New(errcode.ProviderDriver, "inference.driver.config.beta_features must be a string or a list of strings")
	}
	return list, nil
}

// Name returns "anthropic".
func (a *API) Name() string { return "anthropic" }

// URL is <endpoint>/v1/messages.
func (a *API) URL() string { return a.url }

// Header sets x-api-key, anthropic-version, anthropic-beta and the
// driver.config headers.
func (a *API) Header(h http.Header) {
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	h.Set("anthropic-version", a.cfg.Version)
	if a.inf.APIKey != "" {
		h.Set("x-api-key", a.inf.APIKey)
	}
	if len(a.betas) > 0 {
		h.Set("anthropic-beta", strings.Join(a.betas, ","))
	}
	for k, v := range a.cfg.Headers {
		h.Set(k, v)
	}
}
