// Package live serves the http transport natively: it picks the wire API a
// capsule's inference.driver stands for (Select) and hands each case a
// provider on the run's shared httpapi.Client.
package live

import (
	"context"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
)

// Source serves every case of a run over one Client. It is safe for
// concurrent use.
type Source struct {
	client *httpapi.Client
	memo   memo
}

// New returns a Source sending through client.
func New(client *httpapi.Client) *Source { return &Source{client: client} }

// ForCase binds the case's inference block to its API. A transport:
// process capsule has no provider (nil, nil): its CLI calls its model
// itself, and Launch runs it (inference/process).
func (s *Source) ForCase(ctx context.Context, c inference.Case) (inference.Provider, error) {
	switch c.Inference.Transport {
	case "", "http":
	case "process":
		return nil, nil
	default:
		return nil, errcode.New(errcode.ProviderDriver,
			"inference.transport %q is not served", c.Inference.Transport)
	}
	api, err := s.memo.selectAPI(c.Inference)
	if err != nil {
		return nil, err
	}
	return s.client.Provider(api), nil
}
