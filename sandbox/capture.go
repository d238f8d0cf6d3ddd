package sandbox

import (
	"io"
	"os"
)

// maxLogBytes bounds how much of one stream a shell log keeps, so a tool
// printing forever cannot fill the disk through the log (the workdir guard
// and RLIMIT_FSIZE bound what the tool writes itself).
const maxLogBytes = 64 << 20

// spill keeps the first max bytes of a stream in memory and, once the
// stream goes past max, the whole stream (up to maxLogBytes) in an unlinked
// temporary file, for the log. It never fails a write: a tool that sees
// EPIPE may behave differently from one that ran unobserved.
type spill struct {
	max  int
	buf  []byte
	cut  bool
	file *os.File
	n    int64
}

func newSpill(max int) *spill { return &spill{max: max} }

func (s *spill) Write(p []byte) (int, error) {
	if !s.cut && s.n+int64(len(p)) > int64(s.max) {
		s.cut = true
		if f, err := os.CreateTemp("", "murmur-eval-output-"); err == nil {
			_ = os.Remove(f.Name())
			s.file = f
			_, _ = f.Write(s.buf) // until now, buf is the whole stream
		}
	}
	if room := s.max - len(s.buf); room > 0 {
		s.buf = append(s.buf, p[:min(room, len(p))]...)
	}
	if s.file != nil && s.n < maxLogBytes {
		_, _ = s.file.Write(p[:min(int64(len(p)), maxLogBytes-s.n)])
	}
	s.n += int64(len(p))
	return len(p), nil
}

// head is what was kept in memory.
func (s *spill) head() []byte { return s.buf }

// copyTo writes the whole stream to w.
func (s *spill) copyTo(w io.Writer) error {
	if s.file == nil {
		_, err := w.Write(s.buf)
		return err
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(w, s.file)
	return err
}

// discard drops the temporary file.
func (s *spill) discard() {
	if s.file != nil {
		_ = s.file.Close()
	}
}

// writeLog writes the full output of a call to path, murmur's
// logs/shell-<ms>.log.
func writeLog(path, header string, stdout, stderr *spill) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = io.WriteString(f, header+"Stdout:\n")
	if err == nil {
		err = stdout.copyTo(f)
	}
	if err == nil {
		_, err = io.WriteString(f, "\nStderr:\n")
	}
	if err == nil {
		err = stderr.copyTo(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// headTee passes everything to w and keeps the first max bytes, where a
// launcher's set-up failure message would be. A write error of w is not
// the subprocess's: it is dropped, as spill drops its own.
type headTee struct {
	w    io.Writer
	max  int
	head []byte
}

func (t *headTee) Write(p []byte) (int, error) {
	if room := t.max - len(t.head); room > 0 {
		t.head = append(t.head, p[:min(room, len(p))]...)
	}
	_, _ = t.w.Write(p)
	return len(p), nil
}
