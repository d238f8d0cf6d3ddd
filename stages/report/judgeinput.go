package report

import (
	"io"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
	"github.com/murmur-nexus/murmur-eval/trace"
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

// judgeObserver writes the judge's retries and replay divergences to the
// case's trace, as the loop writes a model turn's (so --max-divergence
// counts a judge's divergence as a model turn's), at the session's last
// turn. A write error is dropped: the trace is murmur-eval's, and its own
// Close reports what failed.
type judgeObserver struct {
	tr   *trace.Writer
	turn int
}

func (o *judgeObserver) Retried(r inference.Retry) {
	ev := trace.InferenceRetry{Turn: o.turn, Attempt: r.Attempt, Status: r.Status, Reason: r.Reason,
		WaitMS: r.Wait.Milliseconds(), Error: "judge: " + r.Err}
	if r.RetryAfter != nil {
		ms := r.RetryAfter.Milliseconds()
		ev.RetryAfterMS = &ms
	}
	_ = o.tr.InferenceRetry(ev)
}

// Cached counts the judge's cache lookups with the model turns'.
func (o *judgeObserver) Cached(hit bool) { o.tr.CacheLookup(hit) }

func (o *judgeObserver) Diverged(d inference.Divergence) {
	_ = o.tr.ReplayDivergence(trace.ReplayDivergence{Turn: o.turn, RecordedRequestSHA256: d.Recorded, RequestSHA256: d.Got})
}
