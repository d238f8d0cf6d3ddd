package resolve

import (
	"sync"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/variant"
)

// variants are the run's variants and the Capsule of each, made once from
// the run's on a case of that variant's first asking: the manifest with
// the variant's inference block, the rest shared.
type variants struct {
	set  variant.Set
	mu   sync.Mutex
	made map[string]*Capsule
}

// of returns cap as the variant named name sees it; cap itself for "".
func (v *variants) of(cap *Capsule, name string) (*Capsule, error) {
	if name == "" {
		return cap, nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if c, ok := v.made[name]; ok {
		return c, nil
	}
	vr, ok := v.set.Lookup(name)
	if !ok {
		return nil, errcode.New(errcode.Internal, "case of variant %q, which the run does not have", name)
	}
	m := *cap.Manifest
	if m.Inference == nil {
		return nil, errcode.New(errcode.Variants, "variant %q: the capsule has no inference block for it to change (a script capsule)", name).
			WithHint("run a script capsule without --models and --variants")
	}
	inf, err := vr.Apply(m.Inference)
	if err != nil {
		return nil, err
	}
	m.Inference = inf
	c := *cap
	c.Manifest, c.run = &m, cap
	if v.made == nil {
		v.made = map[string]*Capsule{}
	}
	v.made[name] = &c
	return &c, nil
}
