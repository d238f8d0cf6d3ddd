package scoring

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
)

// maxContainsRead caps how much of a file a contains check reads: a file
// larger than this fails the check rather than filling memory.
const maxContainsRead = 64 << 20

// fileScores scores each expected file under the session folder dir. Files
// are opened through sessionfs: a symlink cannot lead a check outside the
// session folder, and a FIFO, device or folder is not a file (it never
// blocks the check). A file that cannot be read fails its scorer with the
// reason; only a session folder that cannot be opened is an error.
func (e *Expected) fileScores(dir string) ([]Score, error) {
	if len(e.Files) == 0 {
		return nil, nil
	}
	root, err := sessionfs.Open(dir)
	if err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "open session folder for file checks")
	}
	defer root.Close()
	out := make([]Score, 0, len(e.Files))
	for _, f := range e.Files {
		out = append(out, fileScore(root, f))
	}
	return out, nil
}

// fileScore checks one file. Its conditions are existence (or absence),
// each contains string and the sha256; the value is the fraction that hold,
// and the reason names the first that does not.
func fileScore(root *sessionfs.Root, f FileExpectation) Score {
	name := fileScorerName(f.Path)
	total := 1 + len(f.Contains)
	if f.SHA256 != "" {
		total++
	}
	fail := func(held int, format string, args ...any) Score {
		return Score{Name: name, Type: TypeFile, Value: fraction(held, total), Reason: f.Path + " " + fmt.Sprintf(format, args...)}
	}
	fh, err := root.OpenRead(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		if !f.Exists {
			return passFail(name, TypeFile, true, f.Path+" does not exist, as wanted")
		}
		return fail(0, "does not exist")
	}
	if errcode.Is(err, errcode.SessionFile) && !isEscape(err) {
		// A FIFO, device or folder: it is there, but it is not a file.
		if !f.Exists {
			return fail(0, "exists, want it absent")
		}
		return fail(0, "is not a regular file")
	}
	if err != nil {
		return fail(0, "cannot be opened: %v", err)
	}
	defer fh.Close()
	if !f.Exists {
		return fail(0, "exists, want it absent")
	}
	h := sha256.New()
	var content bytes.Buffer
	var r io.Reader = fh
	if len(f.Contains) > 0 {
		r = io.TeeReader(fh, &limitedBuffer{buf: &content, max: maxContainsRead + 1})
	}
	if _, err := io.Copy(h, r); err != nil {
		return fail(1, "cannot be read: %v", err)
	}
	held := 1
	var reasons []string
	if len(f.Contains) > 0 {
		if content.Len() > maxContainsRead {
			return fail(held, "is larger than %d MiB; contains not checked", maxContainsRead>>20)
		}
		s := containsScore(name, TypeFile, f.Path, content.String(), f.Contains)
		held += int(s.Value*float64(len(f.Contains)) + 0.5)
		if !s.Pass {
			return fail(held, "%s", strings.TrimPrefix(s.Reason, f.Path+" "))
		}
		reasons = append(reasons, strings.TrimPrefix(s.Reason, f.Path+" "))
	}
	if f.SHA256 != "" {
		got := hex.EncodeToString(h.Sum(nil))
		if got != f.SHA256 {
			return fail(held, "has sha256 %s, want %s", got, f.SHA256)
		}
		reasons = append(reasons, "has the wanted sha256")
	}
	reason := f.Path + " exists"
	if len(reasons) > 0 {
		reason += ", " + strings.Join(reasons, ", ")
	}
	return passFail(name, TypeFile, true, reason)
}

// isEscape reports a name that resolves outside the session folder (a
// link leading out), which sessionfs refuses with os.Root's error.
func isEscape(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe)
}

// limitedBuffer keeps at most max bytes and silently drops the rest, so a
// TeeReader through it never fails.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
