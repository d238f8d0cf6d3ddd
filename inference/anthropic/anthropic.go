// Package anthropic speaks the Anthropic Messages API (POST /v1/messages)
// for the http transport as murmur's murmur-driver-anthropic speaks it
// (murmur-session.md §2.1), so that a capsule whose driver is not
// installed gets the canonical responses and endings the driver would
// give: the same request (stream: true, tool messages as user tool_result
// messages, system trimmed, thinking blocks only when thinking is on),
// the same reading of the answer (server-sent events, or a JSON body), and
// what the driver ends a turn with (status error) as a failed session
// (httpapi.Failed), not as a harness error. docs/providers.md lists what
// still differs.
package anthropic

import (
	"bytes"
	"cmp"
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
// ignored (they may be meant for the WASM driver). Thinking,
// ThinkingBudget and BetaFeatures are murmur's driver's keys and are read
// as it reads them: a value of the wrong type is ignored, not refused. The
// others are murmur-eval's own and must have their types.
type Config struct {
	Path         string            `json:"path"`              // replaces /v1/messages
	Headers      map[string]string `json:"headers"`           // added to every request
	Version      string            `json:"anthropic_version"` // default 2023-06-01
	BetaFeatures json.RawMessage   `json:"beta_features"`     // string or list → anthropic-beta
	Thinking     json.RawMessage   `json:"thinking"`          // "enabled" turns extended thinking on
	// ThinkingBudget is thinking_budget_tokens (default 1024).
	ThinkingBudget json.RawMessage `json:"thinking_budget_tokens"`
	Temperature    *float64        `json:"temperature"`
	TopP           *float64        `json:"top_p"`
	TopK           *int            `json:"top_k"`
}

// API is the Messages API bound to one case's inference config.
type API struct {
	url      string
	inf      inference.Config
	cfg      Config
	beta     string // the anthropic-beta header, "" for none
	thinking thinking
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
	// murmur's driver appends /v1/messages to the endpoint as it is, even
	// one that already ends in /v1: JoinURL's override keeps that.
	url, err := httpapi.JoinURL(inf.Endpoint, path, cmp.Or(cfg.Path, path))
	if err != nil {
		return nil, err
	}
	if cfg.Version == "" {
		cfg.Version = Version
	}
	return &API{url: url, inf: inf, cfg: cfg, beta: betaHeader(cfg.BetaFeatures), thinking: thinkingConfig(cfg)}, nil
}

// Name returns "anthropic".
func (a *API) Name() string { return "anthropic" }

// URL is <endpoint>/v1/messages.
func (a *API) URL() string { return a.url }

// Header sets the driver's headers: content-type, anthropic-version,
// x-api-key (the key trimmed, when not blank), anthropic-beta; then the
// driver.config headers.
func (a *API) Header(h http.Header) {
	h.Set("Content-Type", "application/json")
	h.Set("anthropic-version", a.cfg.Version)
	if key := strings.TrimSpace(a.inf.APIKey); key != "" {
		h.Set("x-api-key", key)
	}
	if a.beta != "" {
		h.Set("anthropic-beta", a.beta)
	}
	for k, v := range a.cfg.Headers {
		h.Set(k, v)
	}
}
