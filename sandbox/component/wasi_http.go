package component

import (
	"context"
	"strings"

	"github.com/tetratelabs/wazero/api"
)

// addHTTP adds nothing up front: wasi:http functions are made per import
// by httpDenied, since no request may leave an eval case yet.
func addHTTP(map[string]iface) {}

// isHTTP reports whether an unversioned interface name is wasi:http's.
func isHTTP(name string) bool { return strings.HasPrefix(name, "wasi:http/") }

// httpDenied is a host function with the import's own signature that stops
// the guest with a denial. The drivers issue replaces it with a policy-
// filtered client.
func httpDenied(iface, fn string, params, results []api.ValueType) hostFunc {
	return hostFunc{params, results, func(ctx context.Context, s *state, st []uint64) {
		trapf("%s.%s: outgoing HTTP request denied: network access is not available to components in murmur-eval", iface, fn)
	}}
}
