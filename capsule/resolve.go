package capsule

import (
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Pinned is one registry artifact of a manifest, pinned to the version a
// session stages and found in a store.
type Pinned struct {
	Name       string
	Version    string // the lock's resolved_version when locked, else the manifest's
	Runtime    Runtime
	LockSHA256 string // the lock's hash; "" when there is no lock
	Resolved   *Resolved
}

// ResolveAll pins and resolves every registry artifact of m, in manifest
// order, the way `mur eval run` stages them. Artifacts with a local source
// are skipped, as murmur never locks or resolves them.
//
// With a lock, every artifact needs an entry (else E-RUN-003) and the lock's
// resolved_version replaces the manifest's. An artifact no store has is
// E-REG-001 at its manifest entry, as murmur's staging reports the first one
// (mur eval run has no pre-flight E-RUN-008); the hint names any others.
// Any other resolution error is returned at once.
func ResolveAll(m *Manifest, lock *Lock, reg *Registry, platform string) ([]Pinned, error) {
	var pins []Pinned
	var decls []ArtifactDecl
	for _, a := range m.Artifacts {
		if a.IsLocal() {
			continue
		}
		p := Pinned{Name: a.Name, Version: a.Version, Runtime: a.Runtime}
		if lock != nil {
			e, ok := lock.Entry(a.Name)
			if !ok {
				return nil, didYouMean(errcode.New(errcode.RunLock, "%s missing artifact entry for '%s'", LockFile, a.Name).
					At(lock.Path).
					WithHint("run `mur install` to pin it, or delete %s to re-pin every artifact", LockFile), a.Name, lock.names(), "pinned in "+LockFile)
			}
			p.Version, p.LockSHA256 = e.ResolvedVersion, e.SHA256
		}
		pins = append(pins, p)
		decls = append(decls, a)
	}
	var first *errcode.Error
	var others []string
	for i := range pins {
		res, err := reg.Resolve(pins[i].Name, pins[i].Version, platform)
		if errcode.Is(err, errcode.RegistryNotFound) {
			if first == nil {
				first = reg.notInstalledHint(notFound(pins[i].Name, pins[i].Version).At(decls[i].Where()), pins[i].Name, pins[i].Version)
				first.Msg += " (looked in " + strings.Join(reg.Stores, ", ") + ")"
			} else {
				others = append(others, pins[i].Name+"@"+pins[i].Version)
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		pins[i].Resolved = res
	}
	if first != nil {
		if len(others) > 0 {
			first.Hint += "; also missing: " + strings.Join(others, ", ")
		}
		return nil, first
	}
	return pins, nil
}
