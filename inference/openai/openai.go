// Package openai speaks the OpenAI Chat Completions API
// (POST <endpoint>/chat/completions) for the http transport, standing in
// for murmur's murmur-driver-openai when its component is not installed:
// it sends what that driver sends and reads answers as it reads them, so a
// case gets the canonical responses and the verdict murmur gives it
// (docs/providers.md lists the few differences left). The system prompt is
// the first message; tools are function tools; tool_call ⇄ tool_calls;
// tool messages are role "tool".
package openai

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
)

const (
	// path is appended to the endpoint, as murmur's driver appends it:
	// https://api.openai.com/v1 reaches /v1/chat/completions, an endpoint
	// without /v1 reaches /chat/completions.
	path             = "/chat/completions"
	defaultMaxTokens = 8192 // murmur's max_tokens default
)

// Config is the driver.config keys this client honours; others are
// ignored.
type Config struct {
	Path    string            `json:"path"`    // replaces /chat/completions
	Headers map[string]string `json:"headers"` // added to every request
	// MaxTokensField names the output cap in the request:
	// "max_completion_tokens" (default, as murmur's driver sends it) or
	// "max_tokens" (older compatible servers read only that).
	MaxTokensField string   `json:"max_tokens_field"`
	Temperature    *float64 `json:"temperature"`
	TopP           *float64 `json:"top_p"`
	Seed           *int64   `json:"seed"`
	// ParallelToolCalls is sent as parallel_tool_calls when set.
	ParallelToolCalls *bool `json:"parallel_tool_calls"`
}

// API is Chat Completions bound to one case's inference config.
type API struct {
	url string
	inf inference.Config
	cfg Config
}

// New binds Chat Completions to inf.
func New(inf inference.Config) (*API, error) {
	var cfg Config
	if len(inf.DriverConfig) > 0 {
		if err := json.NewDecoder(bytes.NewReader(inf.DriverConfig)).Decode(&cfg); err != nil {
			return nil, errcode.Wrap(errcode.ProviderDriver, err, "inference.driver.config for the openai API")
		}
	}
	switch cfg.MaxTokensField {
	case "":
		cfg.MaxTokensField = "max_completion_tokens"
	case "max_tokens", "max_completion_tokens":
	default:
		return nil, errcode.New(errcode.ProviderDriver,
			"inference.driver.config.max_tokens_field is %q, want max_tokens or max_completion_tokens", cfg.MaxTokensField)
	}
	url, err := httpapi.JoinURL(inf.Endpoint, path, cfg.Path)
	if err != nil {
		return nil, err
	}
	return &API{url: url, inf: inf, cfg: cfg}, nil
}

// Name returns "openai".
func (a *API) Name() string { return "openai" }

// URL is <endpoint>/chat/completions, or <endpoint><driver.config.path>.
func (a *API) URL() string { return a.url }

// Header sets Authorization: Bearer and the driver.config headers.
func (a *API) Header(h http.Header) {
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	if a.inf.APIKey != "" {
		h.Set("Authorization", "Bearer "+a.inf.APIKey)
	}
	for k, v := range a.cfg.Headers {
		h.Set(k, v)
	}
}
