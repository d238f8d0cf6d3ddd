package live

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
)

func TestSelectionRule(t *testing.T) {
	tests := []struct {
		artifact, config string
		want, code       string
	}{
		{"murmur-driver-anthropic", "", APIAnthropic, ""},
		{"my-Claude-driver", "", APIAnthropic, ""},
		{"murmur-driver-openai", "", APIOpenAI, ""},
		{"deepseek-driver", "", APIOpenAI, ""},
		{"driver-vllm", "", APIOpenAI, ""},
		{"ollama", "", APIOpenAI, ""},
		{"llama.cpp-server", "", APIOpenAI, ""},
		{"murmur-driver-anthropic", `{"api":"OpenAI"}`, APIOpenAI, ""},
		{"house-driver", `{"api":"anthropic","beta_features":"x"}`, APIAnthropic, ""},
		{"house-driver", `{"model_family":"x"}`, "", errcode.ProviderDriver},
		{"house-driver", `{"api":"gemini"}`, "", errcode.ProviderDriver},
		{"house-driver", `{"api":1}`, "", errcode.ProviderDriver},
	}
	for _, tt := range tests {
		inf := inference.Config{Endpoint: "https://x.example", DriverArtifact: tt.artifact}
		if tt.config != "" {
			inf.DriverConfig = json.RawMessage(tt.config)
		}
		got, err := APIName(inf)
		if got != tt.want || errcode.Code(err) != tt.code {
			t.Errorf("APIName(%q, %s) = %q, %v; want %q, code %q", tt.artifact, tt.config, got, err, tt.want, tt.code)
		}
		if api, err := Select(inf); err == nil && api.Name() != tt.want {
			t.Errorf("Select(%q) speaks %s, want %s", tt.artifact, api.Name(), tt.want)
		}
	}
}

func TestForCaseLeavesProcessTransportToItsCLI(t *testing.T) {
	s := New(httpapi.NewClient(httpapi.Options{}))
	p, err := s.ForCase(context.Background(), inference.Case{ID: "a", Inference: inference.Config{Transport: "process"}})
	if p != nil || err != nil {
		t.Errorf("ForCase(process) = %v, %v, want no provider and no error", p, err)
	}
	if _, err := s.ForCase(context.Background(), inference.Case{ID: "a", Inference: inference.Config{Transport: "carrier-pigeon"}}); !errcode.Is(err, errcode.ProviderDriver) {
		t.Errorf("ForCase(carrier-pigeon) = %v, want E-EVL-017", err)
	}
	if _, err := s.ForCase(context.Background(), inference.Case{ID: "a", Inference: inference.Config{Transport: "http", Endpoint: "https://x.example", DriverArtifact: "murmur-driver-anthropic"}}); err != nil {
		t.Errorf("ForCase(anthropic) = %v", err)
	}
}
