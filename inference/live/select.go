package live

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/anthropic"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
	"github.com/murmur-nexus/murmur-eval/inference/openai"
)

// The wire APIs murmur-eval speaks.
const (
	APIAnthropic = "anthropic"
	APIOpenAI    = "openai"
)

// driverNames maps a word in a driver artifact's name to the API that
// driver speaks. Checked in order; the first word found decides.
func driverNames() [9]struct{ word, api string } {
	return [...]struct{ word, api string }{
		{"anthropic", APIAnthropic},
		{"claude", APIAnthropic},
		{"openai", APIOpenAI},
		{"deepseek", APIOpenAI},
		{"vllm", APIOpenAI},
		{"ollama", APIOpenAI},
		{"llamacpp", APIOpenAI},
		{"llama-cpp", APIOpenAI},
		{"llama.cpp", APIOpenAI},
	}
}

// APIName is the selection rule: driver.config.api when it is set
// ("anthropic" or "openai", any case), otherwise the first of the words in
// driverNames that the driver artifact's name contains (case-insensitive):
// murmur-driver-anthropic speaks anthropic, an openai-compatible driver
// openai. Any other name is E-EVL-017 with a hint to set driver.config.api.
func APIName(inf inference.Config) (string, error) {
	var cfg struct {
		API *string `json:"api"`
	}
	if len(inf.DriverConfig) > 0 {
		if err := json.NewDecoder(bytes.NewReader(inf.DriverConfig)).Decode(&cfg); err != nil {
			return "", errcode.New(errcode.ProviderDriver, "inference.driver.config.api must be a string")
		}
	}
	if cfg.API != nil {
		switch api := strings.ToLower(strings.TrimSpace(*cfg.API)); api {
		case APIAnthropic, APIOpenAI:
			return api, nil
		default:
			return "", errcode.New(errcode.ProviderDriver,
				"inference.driver.config.api is %q, want anthropic or openai", *cfg.API)
		}
	}
	name := strings.ToLower(inf.DriverArtifact)
	for _, d := range driverNames() {
		if strings.Contains(name, d.word) {
			return d.api, nil
		}
	}
	return "", errcode.New(errcode.ProviderDriver,
		"inference.driver.artifact %q names no API murmur-eval speaks", inf.DriverArtifact).
		WithHint("add `config: {api: anthropic}` or `config: {api: openai}` under inference.driver in murmur.yaml")
}

// Select builds the API for inf by the rule of APIName.
func Select(inf inference.Config) (httpapi.API, error) {
	name, err := APIName(inf)
	if err != nil {
		return nil, err
	}
	if name == APIAnthropic {
		a, err := anthropic.New(inf)
		if err != nil {
			return nil, err
		}
		return a, nil
	}
	o, err := openai.New(inf)
	if err != nil {
		return nil, err
	}
	return o, nil
}
