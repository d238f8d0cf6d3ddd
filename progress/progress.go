// Package progress shows a run's progress: on a terminal a live bar with
// passed / failed / error counts, rate and ETA (vbauerster/mpb); elsewhere,
// as in CI logs, one plain line per finished case.
package progress

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/internal/termtext"
	"github.com/murmur-nexus/murmur-eval/pipeline"
)

// Mode is how progress is shown.
type Mode string

// The modes of --progress.
const (
	Auto  Mode = "auto"  // a bar on a terminal, plain lines otherwise
	Bar   Mode = "bar"   // always the bar
	Plain Mode = "plain" // one line per finished case
	None  Mode = "none"  // nothing
)

// ParseMode reads a --progress value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Auto, Bar, Plain, None:
		return m, nil
	}
	return "", errcode.New(errcode.Usage, "invalid --progress %q: want auto, bar, plain or none", s)
}

// Reporter is told about each finished case. Done is called from one
// goroutine (the run's collector); Close once, after the last Done.
type Reporter interface {
	Done(caseID string, epoch int, status string, took time.Duration)
	Close()
}

// New returns the Reporter for mode, writing to w; terminal says whether w
// is a terminal (for Auto). total is the number of cases expected.
func New(w io.Writer, mode Mode, terminal bool, total int) Reporter {
	switch {
	case mode == None:
		return nop{}
	case mode == Bar || mode == Auto && terminal:
		return newBar(w, total)
	}
	return &plain{w: w, total: total}
}

type nop struct{}

func (nop) Done(string, int, string, time.Duration) {}
func (nop) Close()                                  {}

// plain prints "[  3/12] passed    calc-multiply (38ms)".
type plain struct {
	w     io.Writer
	total int
	n     int
}

func (p *plain) Done(caseID string, epoch int, status string, took time.Duration) {
	p.n++
	width := len(fmt.Sprint(p.total))
	// The id is the dataset's: escaped, so "\x1b[2J" or "\r" in it cannot
	// clear or rewrite the log.
	name := termtext.Field(caseID)
	if epoch > 1 {
		name = fmt.Sprintf("%s (epoch %d)", name, epoch)
	}
	fmt.Fprintf(p.w, "[%*d/%d] %-9s %s (%s)\n", width, p.n, p.total, status, name, took.Round(time.Millisecond))
}

func (p *plain) Close() {}

// bar is the live terminal bar. Its counters are read by mpb's render
// goroutine, hence atomics.
type bar struct {
	p                      *mpb.Progress
	b                      *mpb.Bar
	passed, failed, errors atomic.Int64
}

func newBar(w io.Writer, total int) *bar {
	// WithAutoRefresh: render even when w is not a terminal (--progress bar).
	// The bar draws with escape sequences of its own, so it writes to the
	// writer under a termtext.Writer; it prints no text from the dataset.
	r := &bar{p: mpb.New(mpb.WithOutput(termtext.Raw(w)), mpb.WithWidth(40), mpb.WithAutoRefresh())}
	counts := decor.Any(func(decor.Statistics) string {
		return fmt.Sprintf("passed %d  failed %d  error %d", r.passed.Load(), r.failed.Load(), r.errors.Load())
	}, decor.WCSyncSpaceR)
	r.b = r.p.AddBar(int64(total),
		mpb.PrependDecorators(decor.CountersNoUnit("%d/%d", decor.WCSyncSpaceR), counts),
		mpb.AppendDecorators(
			decor.AverageSpeed(nil, "%.1f cases/s", decor.WCSyncSpace),
			decor.OnComplete(decor.AverageETA(decor.ET_STYLE_GO, decor.WCSyncSpace), "done"),
		),
	)
	return r
}

func (r *bar) Done(_ string, _ int, status string, took time.Duration) {
	switch pipeline.Status(status) {
	case pipeline.StatusPassed:
		r.passed.Add(1)
	case pipeline.StatusFailed:
		r.failed.Add(1)
	default:
		r.errors.Add(1)
	}
	r.b.EwmaIncrement(took)
}

func (r *bar) Close() {
	if !r.b.Completed() {
		r.b.Abort(false) // an interrupted run: keep the bar as it stands
	}
	r.p.Wait()
}
