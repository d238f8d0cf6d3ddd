package main

import (
	"fmt"
	"io"
	"time"

	"github.com/murmur-nexus/murmur-eval/collect"
	"github.com/murmur-nexus/murmur-eval/internal/buildinfo"
	"github.com/murmur-nexus/murmur-eval/runfolder"
)

// buildVersion is the version murmur-eval reports (--version, run.json,
// summary.json): buildinfo.Version of the one set at build time.
func buildVersion() string { return buildinfo.Version(version) }

// printVersion is `murmur-eval version` and --version: the version on
// stdout and, for a build that recorded none, why on stderr.
func printVersion(stdout, stderr io.Writer) int {
	v := buildVersion()
	fmt.Fprintln(stdout, "murmur-eval", v)
	if v == buildinfo.Unknown {
		fmt.Fprintln(stderr, "murmur-eval: this build recorded no version (go run, go build -buildvcs=false, or a build outside a git checkout); make build, or go build in a git checkout, records one")
	}
	return exitOK
}

// earlierWall is the wall time of the invocations before a --resume, from
// the summary.json the last of them wrote (0 for a new run, or when a kill
// left none).
func earlierWall(f *runfolder.Folder, dir string) time.Duration {
	if f.Prev == nil {
		return 0
	}
	d := collect.ReadSummary(dir)
	if d == nil {
		return 0
	}
	return time.Duration(d.WallMS * float64(time.Millisecond))
}
