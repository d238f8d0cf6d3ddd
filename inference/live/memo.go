package live

import (
	"bytes"
	"sync/atomic"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
)

// selected is one Select result and the inference block it was built for.
// It is never changed once stored.
type selected struct {
	inf inference.Config
	api httpapi.API
	err error
}

// memo holds the last Select result of a Source. The cases of a run share
// one inference block almost always, so remembering the last one turns
// the per-case decoding of driver.config (APIName, then the API's own
// config) into a comparison of a few strings.
type memo struct {
	last atomic.Pointer[selected]
}

// selectAPI returns Select(inf), from the memo when inf equals the block
// it last saw. The APIs are read-only after New, so sharing one between
// cases is safe.
func (m *memo) selectAPI(inf inference.Config) (httpapi.API, error) {
	if s := m.last.Load(); s != nil && sameConfig(s.inf, inf) {
		return s.api, s.err
	}
	api, err := Select(inf)
	cfgCopy := inf
	cfgCopy.DriverConfig = bytes.Clone(inf.DriverConfig)
	m.last.Store(&selected{inf: cfgCopy, api: api, err: err})
	return api, err
}

// sameConfig says whether a and b are the same inference block.
func sameConfig(a, b inference.Config) bool {
	return a.Transport == b.Transport && a.Endpoint == b.Endpoint && a.Model == b.Model &&
		a.APIKey == b.APIKey && a.MaxTokens == b.MaxTokens && a.DriverArtifact == b.DriverArtifact &&
		bytes.Equal(a.DriverConfig, b.DriverConfig)
}
