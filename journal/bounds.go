package journal

import (
	"fmt"
	"path"
	"strings"
)

// Bounds is what the lines of a run's journal may name: the cases of the
// run's selection, its epochs and its attempts. A journal is a file in the
// run folder, which anyone who can write there can edit; a line that names
// something else was not written by this run and must not count (issue 33).
type Bounds struct {
	// HasCase reports whether id is a case of the run's selection.
	HasCase func(id string) bool
	// Epochs is the run's --epochs: epochs are numbered 1..Epochs, as the
	// runner plans them.
	Epochs int
	// Attempts is the most attempts a (case, epoch) may have, --retries
	// plus one: attempts are numbered 1..Attempts.
	Attempts int
}

// Row is the identity a row of an entry's record carries: a results row
// (with its session folder) or a score or event row (SessionDir empty).
type Row struct {
	CaseID     string
	Epoch      int
	Attempt    int
	SessionID  string
	SessionDir string
}

// AttemptRows are one attempt's rows in an entry's record: its results row
// and the score and event rows that belong to it.
type AttemptRows struct {
	Result Row
	Others []Row
}

// Check returns nil when the entry e and the attempts its record holds
// (oldest first) belong to a run with bounds b, and otherwise an error
// naming the first field that does not and why, for the journal's reader
// to report with the line. Every attempt's rows must be of e's case and
// epoch, numbered upwards within the bounds and ending at e's attempt; a
// session id must be one name that trace.NewID could have made, and a
// session folder that session's folder under a "sessions" folder.
func (b Bounds) Check(e Entry, attempts []AttemptRows) error {
	if !b.HasCase(e.CaseID) {
		return fmt.Errorf("case_id %q: not a case of the run's selection", e.CaseID)
	}
	if err := b.numbers(e.Epoch, e.Attempt); err != nil {
		return err
	}
	if len(attempts) == 0 {
		return fmt.Errorf("record: holds no attempt")
	}
	prev := 0
	for i, a := range attempts {
		r := a.Result
		where := fmt.Sprintf("record attempt %d", i+1)
		if err := b.sameCase(where, e, r); err != nil {
			return err
		}
		if r.Attempt <= prev {
			return fmt.Errorf("%s: attempt %d: not after attempt %d", where, r.Attempt, prev)
		}
		prev = r.Attempt
		if err := CheckSessionID(r.SessionID); err != nil {
			return fmt.Errorf("%s: session_id %q: %w", where, r.SessionID, err)
		}
		dir, base := path.Split(r.SessionDir)
		if base != r.SessionID || path.Base(dir) != "sessions" || strings.IndexByte(r.SessionDir, 0) >= 0 {
			return fmt.Errorf("%s: session_dir %q: not the folder of session %s", where, r.SessionDir, r.SessionID)
		}
		for j, o := range a.Others {
			if o.CaseID != r.CaseID || o.Epoch != r.Epoch || o.Attempt != r.Attempt || o.SessionID != r.SessionID {
				return fmt.Errorf("%s: row %d: of case %q epoch %d attempt %d session %q, not its attempt's", where, j+1, o.CaseID, o.Epoch, o.Attempt, o.SessionID)
			}
		}
	}
	if prev != e.Attempt {
		return fmt.Errorf("attempt %d: the record's last attempt is %d", e.Attempt, prev)
	}
	return nil
}

// numbers checks an epoch and an attempt against the bounds.
func (b Bounds) numbers(epoch, attempt int) error {
	if epoch < 1 || epoch > b.Epochs {
		return fmt.Errorf("epoch %d: outside the run's epochs 1..%d", epoch, b.Epochs)
	}
	if attempt < 1 || attempt > b.Attempts {
		return fmt.Errorf("attempt %d: outside the run's attempts 1..%d (--retries %d)", attempt, b.Attempts, b.Attempts-1)
	}
	return nil
}

// sameCase checks that a row of the record is of the entry's case and
// epoch, and that its attempt is within the bounds.
func (b Bounds) sameCase(where string, e Entry, r Row) error {
	if r.CaseID != e.CaseID {
		return fmt.Errorf("%s: case_id %q: not the line's case %q", where, r.CaseID, e.CaseID)
	}
	if r.Epoch != e.Epoch {
		return fmt.Errorf("%s: epoch %d: not the line's epoch %d", where, r.Epoch, e.Epoch)
	}
	if err := b.numbers(r.Epoch, r.Attempt); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	return nil
}

// sessionPrefix and sessionHex are the form trace.NewID gives session ids:
// "ses_" and a UUIDv7's 32 lowercase hex digits.
const (
	sessionPrefix = "ses_"
	sessionHex    = 32
)

// CheckSessionID returns nil when id is a session id as murmur-eval makes
// them, and otherwise says why it is not. A session id names the session's
// folder, so anything but one plain path element is refused first, with
// that reason.
func CheckSessionID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("empty")
	case strings.IndexByte(id, 0) >= 0:
		return fmt.Errorf("holds a NUL byte")
	case strings.ContainsAny(id, `/\`):
		return fmt.Errorf("not one path element (holds a separator)")
	case id == "." || id == "..":
		return fmt.Errorf("not one path element (%s)", id)
	}
	hex, ok := strings.CutPrefix(id, sessionPrefix)
	if !ok || len(hex) != sessionHex || strings.Trim(hex, "0123456789abcdef") != "" {
		return fmt.Errorf("not a session id (%s and %d lowercase hex digits)", sessionPrefix, sessionHex)
	}
	return nil
}
