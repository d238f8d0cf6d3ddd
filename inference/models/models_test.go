package models

import (
	"net/http"
	"path/filepath"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference/cache"
	"github.com/murmur-nexus/murmur-eval/inference/driver"
	"github.com/murmur-nexus/murmur-eval/inference/record"
	"github.com/murmur-nexus/murmur-eval/inference/replay"
)

func TestNewModelsPicksTheSource(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		f    Flags
		want string // the source's type, or the error code
	}{
		{"replay", Flags{Replay: dir}, "replay"},
		{"record", Flags{Record: filepath.Join(dir, "rec"), MaxConnections: 8, Workers: 50}, "record"},
		{"live", Flags{MaxConnections: 8}, "driver"},
		{"both", Flags{Replay: dir, Record: dir}, errcode.Usage},
		{"cache", Flags{Cache: filepath.Join(dir, "cache")}, "cache"},
		{"cache and record", Flags{Cache: filepath.Join(dir, "cache"), Record: filepath.Join(dir, "rec")}, "record"},
		{"cache and replay", Flags{Replay: dir, Cache: filepath.Join(dir, "cache")}, errcode.Usage},
		{"negative limit", Flags{MaxConnections: -1}, errcode.Usage},
		{"missing replay dir", Flags{Replay: filepath.Join(dir, "none")}, errcode.IONotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := New(tt.f, map[string]string{})
			src := m.Source
			got := errcode.Code(err)
			switch src.(type) {
			case *replay.Source:
				got = "replay"
			case *record.Source:
				got = "record"
			case *cache.Source:
				got = "cache"
			case *driver.Source:
				got = "driver"
			}
			if got != tt.want {
				t.Errorf("New(%+v) = %T, %v; want %s", tt.f, src, err, tt.want)
			}
			if err == nil {
				m.Close()
			}
		})
	}
}

func TestProxyFromEnv(t *testing.T) {
	if proxyFromEnv(map[string]string{}) != nil {
		t.Error("a proxy without HTTP(S)_PROXY")
	}
	p := proxyFromEnv(map[string]string{"https_proxy": "http://proxy.internal:3128", "NO_PROXY": "internal.example"})
	for target, want := range map[string]string{
		"https://api.anthropic.com/v1/messages": "http://proxy.internal:3128",
		"https://llm.internal.example/v1":       "",
		"http://127.0.0.1:8080/v1":              "",
	} {
		req, _ := http.NewRequest("POST", target, nil)
		u, err := p(req)
		got := ""
		if u != nil {
			got = u.String()
		}
		if err != nil || got != want {
			t.Errorf("proxy for %s = %q, %v; want %q", target, got, err, want)
		}
	}
}
