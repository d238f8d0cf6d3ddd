package inference

import "context"

// Provider answers one case's model requests, turn by turn. A Provider
// belongs to one case and is not safe for concurrent use.
type Provider interface {
	Complete(ctx context.Context, req *Request) (*Response, error)
}

// Source hands out a Provider per case. It is shared by all cases of a run
// and must be safe for concurrent use.
type Source interface {
	ForCase(ctx context.Context, caseID string) (Provider, error)
}
