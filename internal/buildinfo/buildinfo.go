// Package buildinfo is the version of the murmur-eval binary, from what
// the build recorded in it.
package buildinfo

import (
	"runtime/debug"
	"time"
)

// Unknown is the version of a build that recorded none: one given
// nothing with -ldflags and built by go run, with -buildvcs=false or
// outside a git checkout.
const Unknown = "dev"

// Version is the version murmur-eval reports (version, --version,
// run.json, summary.json): set, the one given with -ldflags "-X
// main.version=..." (make build), unless it is Unknown or empty; else
// what the build recorded (see fromBuildInfo); else Unknown.
func Version(set string) string {
	if set != Unknown && set != "" {
		return set
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Unknown
	}
	return fromBuildInfo(info)
}

// fromBuildInfo is the version a build recorded: the module version
// (`go install ...@v1.2.3`, or the pseudo-version Go 1.24 and later derive
// from the checkout for a plain `go build`, +dirty with uncommitted
// changes); else, from the VCS settings, a pseudo-version of the same
// shape (v0.0.0-<commit time>-<revision>, +dirty when modified), or
// dev-<revision> without a commit time; else Unknown.
func fromBuildInfo(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, at, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
				at = t.UTC().Format("20060102150405")
			}
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	switch {
	case rev == "":
		return Unknown
	case at == "":
		return "dev-" + rev + dirty
	}
	return "v0.0.0-" + at + "-" + rev + dirty
}
