package httpapi

import (
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func TestJoinURL(t *testing.T) {
	tests := []struct{ endpoint, path, override, want string }{
		{"https://api.anthropic.com", "/v1/messages", "", "https://api.anthropic.com/v1/messages"},
		{"https://api.anthropic.com/", "/v1/messages", "", "https://api.anthropic.com/v1/messages"},
		{"https://api.openai.com/v1", "/chat/completions", "", "https://api.openai.com/v1/chat/completions"},
		{"http://localhost:11434/v1/", "/chat/completions", "", "http://localhost:11434/v1/chat/completions"},
		{"http://localhost:11434", "/chat/completions", "", "http://localhost:11434/chat/completions"},
		{"https://x.example/v1", "/v1/messages", "", "https://x.example/v1/v1/messages"},
		{"https://gw.example/anthropic", "/v1/messages", "", "https://gw.example/anthropic/v1/messages"},
		{"https://gw.example/api?key=1", "/v1/chat/completions", "", "https://gw.example/api/v1/chat/completions?key=1"},
		{"https://x.example/openai/deployments/d", "/v1/chat/completions", "chat/completions", "https://x.example/openai/deployments/d/chat/completions"},
		{"https://x.example/v1", "/v1/messages", "/v1/messages", "https://x.example/v1/v1/messages"},
	}
	for _, tt := range tests {
		got, err := JoinURL(tt.endpoint, tt.path, tt.override)
		if err != nil || got != tt.want {
			t.Errorf("JoinURL(%q, %q, %q) = %q, %v; want %q", tt.endpoint, tt.path, tt.override, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "ftp://x", "localhost:8080", "http://"} {
		if _, err := JoinURL(bad, "/v1/messages", ""); !errcode.Is(err, errcode.ProviderDriver) {
			t.Errorf("JoinURL(%q) = %v, want %s", bad, err, errcode.ProviderDriver)
		}
	}
}
