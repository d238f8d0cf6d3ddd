// Package journal is a run's crash-safe record of finished cases: one JSON
// line per finished case, appended and fsynced before the case counts, so
// a run killed at any moment (SIGKILL included) leaves a folder whose
// journal says exactly which cases are done. A torn last line, the trace of
// a kill in the middle of a write, is dropped on open. A bad complete line
// (two writers at once leave them; the run folder's lock, lock.go, now
// keeps a second writer out) is skipped and reported, never taken as the
// journal's end.
package journal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Entry is one finished case (one attempt of one epoch). Record is the
// caller's data for it (its results row, for instance), kept verbatim.
type Entry struct {
	CaseID  string `json:"case_id"`
	Epoch   int    `json:"epoch"`
	Attempt int    `json:"attempt"`
	// Variant is the run's variant the case ran; "" (left out) in a run
	// without variants, so their journals read as before.
	Variant string          `json:"variant,omitempty"`
	Record  json.RawMessage `json:"record"`
	// Line is the entry's 1-based line in the journal it was read from; 0
	// for an entry not read from a file. It is not written.
	Line int `json:"-"`
	// Marshalled says Record is json.Marshal's own output (compact, HTML
	// characters escaped), so Append writes it as is instead of encoding
	// it once more to the same bytes. It is not written.
	Marshalled bool `json:"-"`
}

// Key identifies a case's epoch (of a variant) across attempts.
type Key struct {
	CaseID  string
	Epoch   int
	Variant string
}

// Key returns the entry's (case, epoch, variant).
func (e Entry) Key() Key { return Key{e.CaseID, e.Epoch, e.Variant} }

// MaxLine bounds one journal line, so a journal from elsewhere cannot make
// a reader hold an unbounded line: a longer line is skipped as bad. A
// line is one case with its attempts' rows and events; real ones are
// kilobytes.
const MaxLine = 64 << 20

// BadLine is a complete line of a journal that could not be read back: it
// is skipped, and its case counts as not run.
type BadLine struct {
	Line   int // 1-based
	Reason string
}

// Contents is what reading a journal found.
type Contents struct {
	// Entries are the good lines, in file order, each with its Line.
	Entries []Entry
	// Bad are the complete lines skipped: not JSON, not an entry, longer
	// than MaxLine, or refused by the caller's check. Two writers
	// appending at once leave such lines; a single writer never does.
	Bad []BadLine
	// TornLine is the line number of a partial last line (no newline: the
	// write a kill interrupted), 0 if the journal ends in a newline. It is
	// not an entry: its case had not counted as finished.
	TornLine int
}

// Whole returns nil when every line of the journal at path was read, and
// otherwise an errcode.JournalCorrupt error at path:line naming the first
// line that was not, for readers that must not go on with part of a
// journal (merge).
func (c Contents) Whole(path string) error {
	if len(c.Bad) > 0 {
		b := c.Bad[0]
		more := ""
		if n := len(c.Bad) - 1; n > 0 {
			more = fmt.Sprintf(" (and %d more bad lines)", n)
		}
		return errcode.New(errcode.JournalCorrupt, "journal line cannot be read: %s%s", b.Reason, more).
			At(fmt.Sprintf("%s:%d", path, b.Line)).
			WithHint("--resume the run: it skips the bad lines, runs their cases again and rewrites the journal")
	}
	if c.TornLine > 0 {
		return errcode.New(errcode.JournalCorrupt, "journal ends in a partial line: the run was killed while writing it").
			At(fmt.Sprintf("%s:%d", path, c.TornLine)).
			WithHint("--resume the run to finish it before merging")
	}
	return nil
}

// Check is a caller's test of an entry's record (that it decodes, for
// instance); an entry it refuses is a bad line. nil accepts every entry.
type Check func(Entry) error

// Writer appends entries to a journal file. It is not safe for concurrent
// use: one goroutine owns it.
type Writer struct {
	f *os.File
	// buf is the last batch's buffer, reused by the next (a batch of
	// waiting cases' records is ~5 KiB each: a fresh buffer per batch was
	// 8% of a waiting case's allocations, BENCHMARKS.md, issue 19).
	buf []byte
}

// maxKeptBuffer is the largest batch buffer a Writer keeps for the next.
const maxKeptBuffer = 1 << 20

// Open reads the journal at path (creating it if missing) and returns
// what it holds and a Writer that appends after it. A torn last line is
// cut off. When lines were bad, the journal is first rewritten with the
// good lines only (atomically, through a temporary file), so a resumed
// run that runs their cases again leaves a journal that reads whole.
// Only the holder of the run folder's lock may call it.
func Open(path string, check Check) (*Writer, Contents, error) {
	return open(path, check, MaxLine)
}

// open is Open with maxLine for MaxLine (a test's smaller bound).
func open(path string, check Check, maxLine int64) (*Writer, Contents, error) {
	f, err := openRegular(path, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, Contents{}, err
	}
	c, spans, good, err := read(f, check, maxLine)
	if err != nil {
		_ = f.Close()
		return nil, Contents{}, errcode.Wrap(errcode.IO, err, "read journal %s", path)
	}
	if len(c.Bad) > 0 {
		nf, err := rewrite(path, f, spans)
		_ = f.Close()
		if err != nil {
			return nil, Contents{}, err
		}
		return &Writer{f: nf}, c, nil
	}
	// Cut what follows the last complete line, then append from there.
	if err := f.Truncate(good); err != nil {
		_ = f.Close()
		return nil, Contents{}, errcode.Wrap(errcode.IO, err, "repair journal %s", path)
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		_ = f.Close()
		return nil, Contents{}, errcode.Wrap(errcode.IO, err, "seek journal %s", path)
	}
	return &Writer{f: f}, c, nil
}

// span is a good line's place in the file, its newline included.
type span struct{ off, n int64 }

// read decodes every complete line, skipping and recording the bad ones,
// and returns the good lines' spans and the offset after the last
// complete line. A last line that does not end in a newline is torn.
func read(r io.Reader, check Check, maxLine int64) (Contents, []span, int64, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var c Contents
	var spans []span
	var off int64
	for lineNo := 1; ; lineNo++ {
		line, n, tooLong, err := readLine(br, maxLine)
		if errors.Is(err, io.EOF) {
			if n > 0 {
				c.TornLine = lineNo
			}
			return c, spans, off, nil
		}
		if err != nil {
			return Contents{}, nil, 0, err
		}
		start := off
		off += n
		if tooLong {
			c.Bad = append(c.Bad, BadLine{lineNo, fmt.Sprintf("longer than %d bytes", maxLine)})
			continue
		}
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue // a blank line holds nothing to lose
		}
		e, reason := decodeLine(trimmed, check)
		if reason != "" {
			c.Bad = append(c.Bad, BadLine{lineNo, reason})
			continue
		}
		e.Line = lineNo
		c.Entries = append(c.Entries, e)
		spans = append(spans, span{start, n})
	}
}

// readLine returns the next line without its newline and the bytes it
// took, newline included. A line past MaxLine is consumed but not kept.
// At the end of the input it returns io.EOF with what was left (n > 0
// for a torn line).
func readLine(br *bufio.Reader, maxLine int64) (line []byte, n int64, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(chunk))
		if !tooLong {
			if int64(len(line))+int64(len(chunk)) > maxLine+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == nil:
			return bytes.TrimSuffix(line, []byte("\n")), n, tooLong, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return line, n, tooLong, err
		}
	}
}

// decodeLine decodes one line, or says why it is not an entry.
func decodeLine(line []byte, check Check) (Entry, string) {
	var e Entry
	if err := json.Unmarshal(line, &e); err != nil {
		return e, "not a JSON journal entry: " + err.Error()
	}
	if e.CaseID == "" {
		return e, "entry without case_id"
	}
	if check != nil {
		if err := check(e); err != nil {
			return e, err.Error()
		}
	}
	return e, ""
}

// rewrite replaces the journal at path by its good lines, copied from f,
// and returns the new file open for appending.
func rewrite(path string, f *os.File, spans []span) (*os.File, error) {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "rewrite journal %s", path)
	}
	fail := func(err error) (*os.File, error) {
		_ = tmp.Close()
		os.Remove(tmp.Name())
		return nil, errcode.Wrap(errcode.IO, err, "rewrite journal %s", path)
	}
	w := bufio.NewWriterSize(tmp, 64<<10)
	for _, s := range spans {
		if _, err := io.Copy(w, io.NewSectionReader(f, s.off, s.n)); err != nil {
			return fail(err)
		}
	}
	if err := errors.Join(w.Flush(), tmp.Chmod(0o644), tmp.Sync()); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fail(err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	if _, err := tmp.Seek(0, io.SeekEnd); err != nil {
		_ = tmp.Close()
		return nil, errcode.Wrap(errcode.IO, err, "seek journal %s", path)
	}
	return tmp, nil
}

// openRegular opens a journal without following a symbolic link or
// blocking on a FIFO, and refuses anything but a regular file.
func openRegular(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|oSafeOpen, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errcode.Wrap(errcode.IONotFound, err, "open journal %s", path)
		}
		return nil, errcode.Wrap(errcode.IO, err, "open journal %s", path)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	if err != nil {
		_ = f.Close()
		return nil, errcode.Wrap(errcode.IO, err, "open journal %s", path)
	}
	// Back to blocking mode: appends must not return EAGAIN.
	if err := setBlocking(f); err != nil {
		_ = f.Close()
		return nil, errcode.Wrap(errcode.IO, err, "open journal %s", path)
	}
	return f, nil
}

// Append writes one entry and syncs it to disk before returning.
func (w *Writer) Append(e Entry) error { return w.AppendAll([]Entry{e}) }

// AppendAll writes entries with one write and one sync (a group commit:
// the fsync, not the write, is what a finished case waits for). Nothing
// is written when an entry cannot be encoded.
func (w *Writer) AppendAll(entries []Entry) error {
	if len(entries) == 0 {
		return nil
	}
	size := 0
	for _, e := range entries {
		size += len(e.Record) + len(e.CaseID) + 64
	}
	buf := w.buf[:0]
	if cap(buf) < size {
		buf = make([]byte, 0, size) // one allocation, not a growth per record
	}
	defer func() {
		if cap(buf) <= maxKeptBuffer {
			w.buf = buf[:0]
		}
	}()
	for _, e := range entries {
		var err error
		if buf, err = appendLine(buf, e); err != nil {
			return errcode.Wrap(errcode.Internal, err, "encode journal entry for case %q", e.CaseID)
		}
	}
	if _, err := w.f.Write(buf); err != nil {
		return errcode.Wrap(errcode.IO, err, "append to journal")
	}
	if err := w.f.Sync(); err != nil {
		return errcode.Wrap(errcode.IO, err, "sync journal")
	}
	return nil
}

// appendLine appends e's line to buf: json.Marshal(e) and a newline. An
// entry whose Record is Marshalled gets the same bytes without its record,
// the bulk of the line, being scanned and copied again (issue 19).
func appendLine(buf []byte, e Entry) ([]byte, error) {
	if !e.Marshalled || len(e.Record) == 0 {
		b, err := json.Marshal(e)
		return append(append(buf, b...), '\n'), err
	}
	id, err := json.Marshal(e.CaseID)
	if err != nil {
		return buf, err
	}
	buf = append(append(buf, `{"case_id":`...), id...)
	buf = strconv.AppendInt(append(buf, `,"epoch":`...), int64(e.Epoch), 10)
	buf = strconv.AppendInt(append(buf, `,"attempt":`...), int64(e.Attempt), 10)
	if e.Variant != "" {
		v, err := json.Marshal(e.Variant)
		if err != nil {
			return buf, err
		}
		buf = append(append(buf, `,"variant":`...), v...)
	}
	buf = append(append(buf, `,"record":`...), e.Record...)
	return append(buf, "}\n"...), nil
}

// Close closes the file.
func (w *Writer) Close() error { return w.f.Close() }

// Latest keeps, for each (case, epoch), the entry of its highest attempt,
// in the order the keys first appear.
func Latest(entries []Entry) []Entry {
	index := map[Key]int{}
	var out []Entry
	for _, e := range entries {
		if i, ok := index[e.Key()]; ok {
			if e.Attempt >= out[i].Attempt {
				out[i] = e
			}
			continue
		}
		index[e.Key()] = len(out)
		out = append(out, e)
	}
	return out
}

// Exists reports whether a journal file is at path.
func Exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// Read returns what the journal at path holds without repairing it, for
// readers such as merge that must not write; Contents.Whole says whether
// it was read whole.
func Read(path string, check Check) (Contents, error) {
	return readFile(path, check, MaxLine)
}

// readFile is Read with maxLine for MaxLine.
func readFile(path string, check Check, maxLine int64) (Contents, error) {
	f, err := openRegular(path, os.O_RDONLY)
	if err != nil {
		return Contents{}, err
	}
	defer f.Close()
	c, _, _, err := read(f, check, maxLine)
	if err != nil {
		return Contents{}, errcode.Wrap(errcode.IO, err, "read journal %s", path)
	}
	return c, nil
}
