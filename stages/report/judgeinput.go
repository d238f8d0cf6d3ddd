package report

import (
	"io"

	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
)

// maxJudgedDiff is how much of out/workspace.diff is read for a judge,
// which sees less still (scoring/judge bounds it again).
const maxJudgedDiff = 64 << 10

// readDiff reads the start of the session's out/workspace.diff through
// sessionfs; "" when there is none or it cannot be read (the judge is told
// there is no diff, not given a tool's link).
func readDiff(dir string) string {
	if dir == "" {
		return ""
	}
	root, err := sessionfs.Open(dir)
	if err != nil {
		return ""
	}
	defer root.Close()
	f, err := root.OpenRead("out/workspace.diff")
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxJudgedDiff))
	return string(b)
}
