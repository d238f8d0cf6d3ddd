package capsule

import (
	"fmt"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// CheckNetworkAllow parses every network.allow entry of the manifest as
// murmur's staging does (murmur-formats.md §5.2, §5.7): the capsule-wide
// list first, then each tool's, driver's and hook's own, in declaration
// order. The first entry that does not parse is E-CAP-001 in murmur's
// words, with where it is after them.
func (m *Manifest) CheckNetworkAllow() error {
	if n := m.Capabilities.Network; n != nil {
		if _, err := parseAllowList(n.Allow, "capabilities.network.allow", ""); err != nil {
			return err
		}
	}
	for i, a := range m.Artifacts {
		if a.Capabilities == nil || a.Capabilities.Network == nil {
			continue
		}
		field := fmt.Sprintf("artifacts[%d] '%s' capabilities.network.allow", i, a.Name)
		if _, err := parseAllowList(a.Capabilities.Network.Allow, field, a.Where()); err != nil {
			return err
		}
	}
	return nil
}

// parseAllowList parses a list of entries; an error names field, the
// entry's index and, when known, the entry's place in murmur.yaml.
func parseAllowList(entries []string, field, where string) ([]AllowRule, error) {
	rules := make([]AllowRule, 0, len(entries))
	for i, e := range entries {
		r, err := ParseAllowEntry(e)
		if err != nil {
			at := fmt.Sprintf("%s[%d]", field, i)
			if where != "" {
				at = where + ": " + at
			}
			ce := err.(*errcode.Error)
			return nil, errcode.New(ce.Code, "%s (%s)", ce.Msg, at).At(ManifestFile).WithHint("%s", ce.Hint)
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// Ceiling is the capsule-wide allow list (capabilities.network.allow);
// empty when the block is absent. Entries that do not parse are left out:
// CheckNetworkAllow refuses them before anything runs.
func (m *Manifest) Ceiling() []AllowRule {
	if m.Capabilities.Network == nil {
		return nil
	}
	return lenient(m.Capabilities.Network.Allow)
}

// NetworkRules is what artifact a may reach (§5.7). A hook gets exactly
// its own list (none without a network block); a tool or driver without a
// network block inherits the ceiling, and with one keeps the entries some
// ceiling rule covers: the others are returned as dropped (W-SEC-007).
func (m *Manifest) NetworkRules(a *ArtifactDecl) (rules []AllowRule, dropped []string) {
	own := a != nil && a.Capabilities != nil && a.Capabilities.Network != nil
	if a != nil && a.Runtime == RuntimeHook {
		if !own {
			return nil, nil
		}
		return lenient(a.Capabilities.Network.Allow), nil
	}
	ceiling := m.Ceiling()
	if !own {
		return ceiling, nil
	}
	for _, e := range a.Capabilities.Network.Allow {
		r, err := ParseAllowEntry(e)
		if err != nil {
			continue
		}
		covered := false
		for _, c := range ceiling {
			if c.Covers(r) {
				covered = true
				break
			}
		}
		if covered {
			rules = append(rules, r)
		} else {
			dropped = append(dropped, strings.TrimSpace(e))
		}
	}
	return rules, dropped
}

// NetworkWarnings are murmur's W-SEC-007 warnings, one per tool or driver
// whose own network.allow names entries the ceiling does not cover, each
// "warning[W-SEC-007]: text".
func (m *Manifest) NetworkWarnings() []string {
	var out []string
	for i := range m.Artifacts {
		a := &m.Artifacts[i]
		if a.Runtime != RuntimeTool && a.Runtime != RuntimeDriver {
			continue
		}
		if _, dropped := m.NetworkRules(a); len(dropped) > 0 {
			out = append(out, fmt.Sprintf("warning[W-SEC-007]: artifact '%s' declares capabilities.network.allow entries the capsule-wide ceiling does not allow (%s): they are dropped, not granted, because per-artifact capabilities can only narrow",
				a.Name, strings.Join(dropped, ", ")))
		}
	}
	return out
}

// lenient parses the entries that parse.
func lenient(entries []string) []AllowRule {
	var out []AllowRule
	for _, e := range entries {
		if r, err := ParseAllowEntry(e); err == nil {
			out = append(out, r)
		}
	}
	return out
}
