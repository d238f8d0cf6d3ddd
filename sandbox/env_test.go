package sandbox

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMatchEnvPattern(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"*TOKEN*", "MY_TOKEN_FILE", true},
		{"*TOKEN*", "TOKEN", true},
		{"*TOKEN*", "TOKE", false},
		{"*_API_KEY", "OPENAI_API_KEY", true},
		{"*_API_KEY", "API_KEY", false},
		{"*_API_KEY", "OPENAI_API_KEY_FILE", false},
		{"AWS_*", "AWS_SECRET_ACCESS_KEY", true},
		{"AWS_*", "AWS_", true},
		{"AWS_*", "AWS", false},
		{"AWS_*", "MY_AWS_X", false},
		{"GITHUB_TOKEN", "GITHUB_TOKEN", true},
		{"GITHUB_TOKEN", "GITHUB_TOKEN_2", false},
		{"GITHUB_TOKEN", "github_token", false}, // case-sensitive
		{"aws_*", "AWS_X", false},
		{"*", "ANYTHING", true},
		{"**", "ANYTHING", true},
		{"", "", true},
		{"", "X", false},
	}
	for _, tt := range tests {
		if got := MatchEnvPattern(tt.pattern, tt.name); got != tt.want {
			t.Errorf("MatchEnvPattern(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

func TestCredentialLike(t *testing.T) {
	for name, want := range map[string]bool{
		"ANTHROPIC_API_KEY":        true,
		"OPENAI_API_KEY":           true,
		"MURMUR_INFERENCE_API_KEY": true, // *_API_KEY
		"SOME_VENDOR_API_KEY":      true,
		"HUGGING_FACE_HUB_TOKEN":   true,
		"AWS_ACCESS_KEY_ID":        true,
		"AWS_PROFILE":              true,
		"DOCKER_HOST":              true,
		"KUBECONFIG":               true,
		"GH_TOKEN":                 true,
		"NPM_TOKEN":                true,
		"PYPI_TOKEN":               true,
		"CARGO_REGISTRY_TOKEN":     true,
		"GITHUB_TOKEN":             true,
		"GITHUB_TOKEN_PATH":        false, // exact pattern
		"MY_TOKEN":                 false, // no *TOKEN* pattern by default
		"API_KEY":                  false,
		"anthropic_api_key":        false, // case-sensitive
		"PATH":                     false,
		"MURMUR_CAPSULE_NAME":      false,
	} {
		if got := CredentialLike(name); got != want {
			t.Errorf("CredentialLike(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestFilterEnv(t *testing.T) {
	host := map[string]string{
		"LANG": "C.UTF-8", "TZ": "UTC", "A1": "x", "A": "y", "OPENAI_API_KEY": "sk-secret",
		"AWS_REGION": "eu-north-1", "INTERNAL_URL": "http://db", "HOME": "/root", "EMPTY": "",
	}
	tests := []struct {
		name         string
		allow, strip []string
		want         []string
	}{
		{"nothing allowed", nil, nil, nil},
		{"allowed and set, sorted by name", []string{"TZ", "LANG", "A1", "A"}, nil,
			[]string{"A=y", "A1=x", "LANG=C.UTF-8", "TZ=UTC"}},
		{"unset names silently omitted", []string{"TZ", "NOT_SET"}, nil, []string{"TZ=UTC"}},
		{"empty value kept", []string{"EMPTY"}, nil, []string{"EMPTY="}},
		{"credentials stripped even when allowed", []string{"OPENAI_API_KEY", "AWS_REGION", "TZ"}, nil,
			[]string{"TZ=UTC"}},
		{"strip patterns", []string{"INTERNAL_URL", "LANG", "TZ"}, []string{"INTERNAL_*", "TZ"},
			[]string{"LANG=C.UTF-8"}},
		{"allow entries are exact names, not patterns", []string{"L*", "*"}, nil, nil},
		{"duplicates once", []string{"TZ", "TZ"}, nil, []string{"TZ=UTC"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FilterEnv(host, tt.allow, tt.strip)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("FilterEnv (-want +got):\n%s", diff)
			}
		})
	}
}
