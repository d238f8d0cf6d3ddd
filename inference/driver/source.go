package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"sync/atomic"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/live"
)

// Source serves each case through its driver component when Launch bound
// one (inference.Case.Driver), through fallback otherwise. It is safe for
// concurrent use.
type Source struct {
	fallback inference.Source
	// spoken is the last driver block APIName accepted (its artifact name
	// and config): the cases of a run share one, and decoding
	// driver.config per case was 2.7% of a waiting case's CPU (issue 19).
	// Only an accepted block is remembered: an error is made afresh for
	// each case, which may annotate its own.
	spoken atomic.Pointer[driverBlock]
}

// driverBlock is what APIName reads of an inference block. It is never
// changed once stored.
type driverBlock struct {
	artifact string
	config   []byte
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
	if err := s.speaks(c.Inference); err != nil {
		return nil, err
	}
	return s.fallback.ForCase(ctx, c)
}

// speaks says why the built-in providers cannot answer for inf's driver,
// or nil when they can.
func (s *Source) speaks(inf inference.Config) error {
	if b := s.spoken.Load(); b != nil && b.artifact == inf.DriverArtifact && bytes.Equal(b.config, inf.DriverConfig) {
		return nil
	}
	if _, err := live.APIName(inf); err != nil {
		if !setsAPI(inf.DriverConfig) {
			return NotInstalled(inf.DriverArtifact)
		}
		return err // a driver.config.api murmur-eval does not speak
	}
	s.spoken.Store(&driverBlock{artifact: inf.DriverArtifact, config: bytes.Clone(inf.DriverConfig)})
	return nil
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
