package session

import (
	"errors"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// Close finishes the session's files once no stage uses them
// (pipeline.Closer; Report has read the trace): murmur's fallback
// session_end when the session started but never ended, what a tool
// planted at a log's name removed and noted in the trace, and the trace
// flushed and closed, which checks its own name; both checks are
// skipped when Untouched says no untrusted code had the folder. A
// failure is E-IO-003, unless it already carries a code (a session file
// refused is E-EVL-040), which is kept: errcode.Code reads the outermost
// code, and the specific one should win. A Session without a trace has
// nothing to close.
func (s *Session) Close() error {
	if s == nil || s.Trace == nil {
		return nil
	}
	var errs []error
	if s.Trace.Started() && !s.Trace.Ended() {
		// murmur's launch fallback: an attempt that started but ended in
		// an error still gets a session_end, with status failed.
		errs = append(errs, s.Trace.SessionEnd(trace.ExitFailed))
	}
	if s.Untouched != nil && s.Untouched() {
		// Nothing untrusted had the folder: every name in it is still
		// murmur-eval's own, so neither check could find anything.
		errs = append(errs, s.Trace.CloseUnreached())
	} else {
		if s.Dir != "" {
			// No tool runs any more: what a tool planted at a log's name
			// is removed and noted in the trace, whose own name Close
			// checks (docs/sandbox.md, "Host-side file access").
			errs = append(errs, unplantLogs(s.Dir, s.Trace, s.Hooks != nil))
		}
		errs = append(errs, s.Trace.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return errcode.WrapKeep(errcode.IO, err, "finish session files")
	}
	return nil
}
