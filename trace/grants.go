package trace

import (
	"bytes"
	"encoding/json"
	"slices"
)

// grantKeys are the keys of murmur's effective_grants object (its
// ScopeReport, containment.rs) in declaration order, the order murmur's
// serializer writes them.
var grantKeys = []string{ //nolint:gochecknoglobals // read-only list of murmur's grant keys, in order
	"declared_containment", "achieved_containment", "floor_met", "shortfall_reason",
	"enforcement_tier", "filesystem_scope", "workdir_exec", "network_allow", "unix_sockets",
	"shell_allow", "spawn_allow", "env_allow", "interpreter_runtime_grants", "staged_runtime_grants",
}

// Grants is session_start's effective_grants. It is written with murmur's
// keys in murmur's order, then murmur-eval's additions (subprocess_egress,
// enforcement_mechanism) sorted by name.
type Grants map[string]any

// MarshalJSON writes g in murmur's key order.
func (g Grants) MarshalJSON() ([]byte, error) {
	if g == nil {
		return []byte("null"), nil
	}
	keys := make([]string, 0, len(g))
	for _, k := range grantKeys {
		if _, ok := g[k]; ok {
			keys = append(keys, k)
		}
	}
	var extra []string
	for k := range g {
		if !slices.Contains(grantKeys, k) {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	keys = append(keys, extra...)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(g[k])
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
