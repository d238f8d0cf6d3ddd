package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestVersion(t *testing.T) {
	if got := Version("v1.4.0"); got != "v1.4.0" {
		t.Errorf("Version(v1.4.0) = %q, want the version set", got)
	}
	if got := Version(""); got == "" {
		t.Error("Version(\"\") is empty")
	}
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	tests := []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"module version", debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"go build's pseudo-version", debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261205064246-3113db8706f1+dirty"}}, "v0.0.0-20261205064246-3113db8706f1+dirty"},
		{"revision and time", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", "0123456789abcdef0123", "vcs.time", "2026-12-05T06:42:46Z", "vcs.modified", "false")}, "v0.0.0-20261205064246-0123456789ab"},
		{"dirty", debug.BuildInfo{Settings: vcs("vcs.revision", "0123456789abcdef0123", "vcs.time", "2026-12-05T07:42:46+01:00", "vcs.modified", "true")}, "v0.0.0-20261205064246-0123456789ab+dirty"},
		{"revision only", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", "0123456789abcdef0123", "vcs.modified", "false")}, "dev-0123456789ab"},
		{"revision, bad time, dirty", debug.BuildInfo{Settings: vcs("vcs.revision", "abc", "vcs.time", "yesterday", "vcs.modified", "true")}, "dev-abc+dirty"},
		{"nothing", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{"-buildvcs=false", debug.BuildInfo{Settings: vcs("-buildvcs", "false")}, "dev"},
	}
	for _, tt := range tests {
		if got := fromBuildInfo(&tt.info); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
