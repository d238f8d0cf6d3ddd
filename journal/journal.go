// Package journal is a run's crash-safe record of finished cases: one JSON
// line per finished case, appended and fsynced before the case counts, so
// a run killed at any moment (SIGKILL included) leaves a folder whose
// journal says exactly which cases are done. A torn last line, the trace of
// a kill in the middle of a write, is dropped on open.
package journal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Entry is one finished case (one attempt of one epoch). Record is the
// caller's data for it (its results row, for instance), kept verbatim.
type Entry struct {
	CaseID  string          `json:"case_id"`
	Epoch   int             `json:"epoch"`
	Attempt int             `json:"attempt"`
	Record  json.RawMessage `json:"record"`
}

// Key identifies a case's epoch across attempts.
type Key struct {
	CaseID string
	Epoch  int
}

// Key returns the entry's (case, epoch).
func (e Entry) Key() Key { return Key{e.CaseID, e.Epoch} }

// Writer appends entries to a journal file. It is not safe for concurrent
// use: one goroutine owns it.
type Writer struct {
	f *os.File
}

// Open reads the journal at path (creating it if missing), drops a torn
// last line, and returns the entries already recorded and a Writer that
// appends after them.
func Open(path string) (*Writer, []Entry, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, errcode.Wrap(errcode.IO, err, "open journal %s", path)
	}
	entries, good, err := read(f)
	if err != nil {
		f.Close()
		return nil, nil, errcode.Wrap(errcode.IO, err, "read journal %s", path)
	}
	// Cut what follows the last complete line, then append from there.
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, nil, errcode.Wrap(errcode.IO, err, "repair journal %s", path)
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, nil, errcode.Wrap(errcode.IO, err, "seek journal %s", path)
	}
	return &Writer{f: f}, entries, nil
}

// read decodes complete, valid lines and returns the offset after the last
// one. A line that does not end in a newline, or does not decode, ends the
// journal there: it can only be the write a kill interrupted.
func read(r io.Reader) ([]Entry, int64, error) {
	br := bufio.NewReader(r)
	var entries []Entry
	var good int64
	for {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return entries, good, nil // a partial last line, or none
		}
		if err != nil {
			return nil, 0, err
		}
		var e Entry
		if json.Unmarshal(bytes.TrimSpace(line), &e) != nil || e.CaseID == "" {
			return entries, good, nil
		}
		entries = append(entries, e)
		good += int64(len(line))
	}
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
	var buf []byte
	for _, e := range entries {
		b, err := json.Marshal(e)
		if err != nil {
			return errcode.Wrap(errcode.Internal, err, "encode journal entry for case %q", e.CaseID)
		}
		buf = append(append(buf, b...), '\n')
	}
	if _, err := w.f.Write(buf); err != nil {
		return errcode.Wrap(errcode.IO, err, "append to journal")
	}
	if err := w.f.Sync(); err != nil {
		return errcode.Wrap(errcode.IO, err, "sync journal")
	}
	return nil
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

// Read returns the complete entries of the journal at path without
// repairing it, for readers such as merge that must not write.
func Read(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "open journal %s", path)
	}
	defer f.Close()
	entries, _, err := read(f)
	if err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "read journal %s", path)
	}
	return entries, nil
}
