package sandbox

import (
	"io"
	"os"
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
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
// logs/shell-<ms>.log. path is <session>/logs/<file> (Proc.LogPath): the
// session folder, which the tool cannot replace (its parent is the run's),
// is the root, and below it the log goes through sessionfs, created fresh
// where the tool may have left a link, FIFO or folder.
func writeLog(path, header string, stdout, stderr *spill) error {
	session := filepath.Dir(filepath.Dir(path))
	name := filepath.Join(filepath.Base(filepath.Dir(path)), filepath.Base(path))
	r, err := sessionfs.Open(session)
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := r.Create(name, 0o644)
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
