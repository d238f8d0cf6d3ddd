// Package buildinfo is the version of the murmur-eval binary, from what
// the build recorded in it.
package buildinfo

import "runtime/debug"

// Version is the version murmur-eval reports (--version, run.json,
// summary.json): set, the one given with -ldflags "-X main.version=..."
// (make build), unless it is "dev" or empty; else the module version `go
// install ...@v1.2.3` recorded in the binary's build info, else the VCS
// revision of a `go build` in a checkout, else "dev".
func Version(set string) string {
	if set != "dev" && set != "" {
		return set
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	return fromBuildInfo(info)
}

// fromBuildInfo is Version from what the build recorded.
func fromBuildInfo(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		return "dev-" + rev + dirty
	}
	return "dev"
}
