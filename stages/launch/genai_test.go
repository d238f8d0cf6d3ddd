package launch

import (
	"encoding/json"
	"testing"

	"github.com/murmur-nexus/murmur-eval/capsule"
)

// TestProviderName: the chat spans' gen_ai.provider.name is the API an
// http capsule's driver speaks, and nothing when it cannot be told.
func TestProviderName(t *testing.T) {
	tests := []struct {
		name string
		inf  *capsule.Inference
		want string
	}{
		{"anthropic driver", &capsule.Inference{Transport: capsule.TransportHTTP, DriverArtifact: "murmur-driver-anthropic"}, "anthropic"},
		{"openai-compatible driver", &capsule.Inference{Transport: capsule.TransportHTTP, DriverArtifact: "murmur-driver-vllm"}, "openai"},
		{"config names the api", &capsule.Inference{Transport: capsule.TransportHTTP, DriverArtifact: "my-driver",
			DriverConfig: json.RawMessage(`{"api":"OpenAI"}`)}, "openai"},
		{"unknown driver", &capsule.Inference{Transport: capsule.TransportHTTP, DriverArtifact: "my-driver"}, ""},
		{"process capsule", &capsule.Inference{Transport: capsule.TransportProcess, Command: "agent"}, ""},
		{"no inference block", nil, ""},
	}
	for _, tt := range tests {
		if got := providerName(tt.inf); got != tt.want {
			t.Errorf("%s: providerName = %q, want %q", tt.name, got, tt.want)
		}
	}
}
