package driver

import (
	"context"
	"encoding/json"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/live"
)

// Source serves each case through its driver component when Launch bound
// one (inference.Case.Driver), through fallback otherwise. It is safe for
// concurrent use.
type Source struct {
	fallback inference.Source
}

// New returns a Source falling back on fallback (the live built-in
// providers) for cases whose driver is not installed.
func New(fallback inference.Source) *Source { return &Source{fallback: fallback} }

// ForCase returns the case's driver provider, or fallback's. A driver
// that is not installed and that murmur-eval does not speak natively is
// murmur's E-RUN-006, in murmur's words.
func (s *Source) ForCase(ctx context.Context, c inference.Case) (inference.Provider, error) {
	if c.Inference.Transport == "process" {
		return s.fallback.ForCase(ctx, c)
	}
	if c.Driver != nil {
		return &provider{drv: c.Driver}, nil
	}
	if _, err := live.APIName(c.Inference); err != nil {
		if !setsAPI(c.Inference.DriverConfig) {
			return nil, NotInstalled(c.Inference.DriverArtifact)
		}
		return nil, err // a driver.config.api murmur-eval does not speak
	}
	return s.fallback.ForCase(ctx, c)
}

// NotInstalled is murmur's refusal of a driver artifact it cannot find
// (DriverNotInstalled, E-RUN-006), its text and hint.
func NotInstalled(name string) error {
	return errcode.New(errcode.RunDriverAbsent, "inference driver '%s' is not installed in the local tool registry", name).
		WithHint("declare the driver artifact in murmur.yaml artifacts: and run `mur run` to install it")
}

// setsAPI says whether driver.config names an API (murmur-eval's own key,
// docs/providers.md).
func setsAPI(config json.RawMessage) bool {
	var cfg map[string]json.RawMessage
	_ = json.Unmarshal(config, &cfg)
	_, ok := cfg["api"]
	return ok
}
