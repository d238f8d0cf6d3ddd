package trace

import (
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
)

// TypeSessionFileReplaced is the event murmur-eval adds when a tool left
// something of its own at the name of a file murmur-eval kept open in the
// session (the trace itself): a note about the session, not the model's
// failure.
const TypeSessionFileReplaced = "session_file_replaced"

// SessionFileReplaced says what was at a harness file's name when the
// case ended, instead of the file murmur-eval wrote: the trace is put
// back at its name (sessionfs.Root.Reclaim), a log's planted entry is
// removed (sessionfs.Root.Unplant); what the tool made of the original (a
// renamed copy) stays where the tool put it.
type SessionFileReplaced struct {
	// Path is the file's name in the session folder.
	Path string `json:"path"`
	// Found is what was at the name: "nothing", "a symlink", "a FIFO",
	// "a folder", "another file" or "a hard link" (the trace, put back);
	// for a log murmur-eval appends to by name, what was removed
	// (sessionfs.Root.Unplant).
	Found string `json:"found"`
}

// SessionFileReplaced writes a session_file_replaced event (for a log
// of the session that Report found replaced; Close writes the trace's).
func (w *Writer) SessionFileReplaced(e SessionFileReplaced) error {
	return w.write(TypeSessionFileReplaced, nil, "", e)
}

// reclaim checks, once the lines are flushed, that the trace's name still
// holds the file the Writer wrote (a tool may have renamed it and left a
// link to a host file in its place). If it does not, the name gets a
// fresh copy of what the Writer wrote, the Writer goes on in the copy, and
// a session_file_replaced event is its last line.
func (w *Writer) reclaim() error {
	if w.path == "" || stillNamed(w.path, w.f) {
		return nil
	}
	dir, name := filepath.Split(w.path)
	r, err := sessionfs.Open(dir)
	if errcode.Is(err, errcode.IONotFound) {
		return nil // the folder is gone (moved away whole): no name to present
	}
	if err != nil {
		return err
	}
	defer func() { _ = r.Close() }()
	fresh, found, err := r.Reclaim(name, w.f)
	if fresh == nil {
		return err
	}
	_ = w.f.Close() // the renamed file is the tool's now
	w.f = fresh
	if err := w.write(TypeSessionFileReplaced, nil, "", SessionFileReplaced{Path: name, Found: found}); err != nil {
		return err
	}
	return w.flush()
}
