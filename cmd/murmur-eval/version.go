package main

import (
	"runtime/debug"
	"time"
)

// buildVersion is the version murmur-eval reports (--version, run.json,
// summary.json): the one set with -ldflags "-X main.version=..." (make
// build), else the module version `go install ...@v1.2.3` recorded in the
// binary's build info, else the VCS revision of a `go build` in a
// checkout, else "dev".
func buildVersion() string {
	if version != "dev" && version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
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

// earlierWall is the wall time of the invocations before a --resume, from
// the summary.json the last of them wrote (0 for a new run, or when a kill
// left none).
func earlierWall(f runFolder, dir string) time.Duration {
	if f.prev == nil {
		return 0
	}
	d := readSummaryJSON(dir)
	if d == nil {
		return 0
	}
	return time.Duration(d.WallMS * float64(time.Millisecond))
}
