// Package report is the Report stage: it runs for every case, whatever
// failed before it, and finishes the session's files: murmur's fallback
// session_end when a session started but never ended, the trace flushed and
// closed, and out/result.txt. The case's row is assembled from the Case
// after this stage, so that the row can carry report_ms too.
package report

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
)

// Name is the stage's name in the graph.
const Name = "report"

// Stage is the Report stage. It holds no state.
type Stage struct{}

// Name returns "report".
func (Stage) Name() string { return Name }

// Run finishes the case's session files. It writes nothing when the case
// never got a session directory (a failure before Stage).
func (Stage) Run(_ context.Context, c *pipeline.Case) error {
	var errs []error
	if s := c.Session; s != nil && s.Trace != nil {
		if s.Trace.Started() && !s.Trace.Ended() {
			// murmur's launch fallback: an attempt that started but ended in
			// an error still gets a session_end, with status failed.
			errs = append(errs, s.Trace.SessionEnd(pipeline.ExitFailed))
		}
		errs = append(errs, s.Trace.Close())
	}
	if c.SessionDir != "" {
		if _, err := os.Stat(c.SessionDir); err == nil {
			errs = append(errs, writeResult(c))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return errcode.Wrap(errcode.IO, err, "finish session files")
	}
	return nil
}

// writeResult writes out/result.txt: the loop's text, or for a case that
// failed before the loop ended a session, "error: " and the first failure.
func writeResult(c *pipeline.Case) error {
	text := c.Loop.ResultText
	if c.Loop.ExitStatus == "" {
		if v := pipeline.Judge(c); v.Err != nil {
			text = "error: " + v.Err.Error()
		}
	}
	dir := filepath.Join(c.SessionDir, "out")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "result.txt"), []byte(text), 0o644)
}
