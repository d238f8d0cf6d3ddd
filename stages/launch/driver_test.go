package launch

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/capsule"
)

// TestDriverEnvAddsTheKeyForTheDriverOnly: the driver's environment is the
// guests' plus MURMUR_INFERENCE_API_KEY when api_key is set; the guests'
// own list is left as it was (tools never get the key).
func TestDriverEnvAddsTheKeyForTheDriverOnly(t *testing.T) {
	guests := make([]string, 1, 4) // room to append in place: must not be used
	guests[0] = "MURMUR_INFERENCE_MODEL=m"
	got := driverEnv(guests, &capsule.Inference{APIKey: "sk-1"})
	if diff := cmp.Diff([]string{"MURMUR_INFERENCE_MODEL=m", "MURMUR_INFERENCE_API_KEY=sk-1"}, got); diff != "" {
		t.Errorf("driver env (-want +got):\n%s", diff)
	}
	if full := guests[:2]; full[1] != "" {
		t.Errorf("the guests' env was written to: %q", full)
	}
	if got := driverEnv(guests, &capsule.Inference{}); len(got) != 1 {
		t.Errorf("no api_key: driver env %q, want the guests' alone", got)
	}
	if bindDriver(&toolbox{}, nil, nil) != nil {
		t.Error("a driver bound with none installed")
	}
}
