package resolve

import (
	"testing"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/variant"
)

// TestVariantCapsules: a variant's Capsule is made once, carries the
// variant's inference block over the run's (which is left as it was), and
// names the run's as its Run.
func TestVariantCapsules(t *testing.T) {
	run := &Capsule{Manifest: &capsule.Manifest{Name: "c", Inference: &capsule.Inference{Transport: capsule.TransportHTTP, Model: "m0", MaxTurns: 10}}}
	vs := &variants{set: variant.NewSet([]variant.Variant{{Name: "a", Model: "m1"}, {Name: "b", MaxTurns: 2}})}
	a, err := vs.of(run, "a")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := vs.of(run, "a")
	b, _ := vs.of(run, "b")
	none, _ := vs.of(run, "")
	switch {
	case a != again:
		t.Error("variant a's Capsule made twice")
	case none != run || run.Run() != run:
		t.Error("no variant: not the run's Capsule")
	case a.Run() != run || b.Run() != run:
		t.Error("a variant's Run is not the run's Capsule")
	case a.Manifest.Inference.Model != "m1" || a.Manifest.Inference.MaxTurns != 10 || a.Manifest.Name != "c":
		t.Errorf("variant a: %+v", a.Manifest.Inference)
	case b.Manifest.Inference.Model != "m0" || b.Manifest.Inference.MaxTurns != 2:
		t.Errorf("variant b: %+v", b.Manifest.Inference)
	case run.Manifest.Inference.Model != "m0" || run.Manifest.Inference.MaxTurns != 10:
		t.Errorf("the run's manifest changed: %+v", run.Manifest.Inference)
	}
	if _, err := vs.of(run, "z"); errcode.Code(err) != errcode.Internal {
		t.Errorf("an unknown variant: %v", err)
	}
	script := &Capsule{Manifest: &capsule.Manifest{Name: "s"}}
	fresh := &variants{set: vs.set} // a Stage's holds one run's Capsule only
	if _, err := fresh.of(script, "a"); errcode.Code(err) != errcode.Variants {
		t.Errorf("a script capsule's variant: %v, want %s", err, errcode.Variants)
	}
}
