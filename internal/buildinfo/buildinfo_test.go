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
		{"revision", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", "0123456789abcdef0123", "vcs.modified", "false")}, "dev-0123456789ab"},
		{"dirty", debug.BuildInfo{Settings: vcs("vcs.revision", "abc", "vcs.modified", "true")}, "dev-abc-dirty"},
		{"nothing", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
	}
	for _, tt := range tests {
		if got := fromBuildInfo(&tt.info); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
