// Package replay serves recorded model responses, so an evaluation can run
// deterministically and for free. A recording is one JSONL file per case in a
// directory, one line per model turn, each line murmur's canonical response
// (`{"stop_reason": ..., "content": [...]}`) with an optional `usage` and an
// optional `request_sha256`: the digest of the request that turn answered
// (inference.RequestDigest). When it is there, the replay checks the loop's
// request against it and reports a divergence; other fields are ignored, so
// old recordings still replay.
package replay

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
)

// Source reads recordings from one directory. It is safe for concurrent use:
// each ForCase reads its own file.
type Source struct {
	dir string
}

// Open checks that dir is a directory and returns a Source over it.
func Open(dir string) (*Source, error) {
	st, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errcode.New(errcode.IONotFound, "replay directory %s not found", dir).
				WithHint("pass --replay the folder that holds the <case_id>.jsonl recordings")
		}
		return nil, errcode.Wrap(errcode.IO, err, "replay directory %s", dir)
	}
	if !st.IsDir() {
		return nil, errcode.New(errcode.Usage, "--replay %s is not a directory", dir)
	}
	return &Source{dir: dir}, nil
}

// FileName is the recording file of a case. An id made only of letters,
// digits, '.', '_' and '-' (and not "." or "..") names its file directly:
// "<id>.jsonl". Any other id, which may hold '/', spaces or anything else,
// uses "sha256-<lowercase hex of the id's SHA-256>.jsonl", so every id maps
// to one safe file name inside the directory; so does a safe id too long
// for one file name (over 249 bytes: 255, Linux's and macOS's NAME_MAX,
// less ".jsonl"), which recorded nothing before.
func FileName(caseID string) string {
	if safeID(caseID) && len(caseID)+len(".jsonl") <= maxNameBytes {
		return caseID + ".jsonl"
	}
	sum := sha256.Sum256([]byte(caseID))
	return "sha256-" + hex.EncodeToString(sum[:]) + ".jsonl"
}

// CaseFileName is the name of a case's recording: FileName of its id, or
// for a case of a run's variant "<case_id>@<variant>.jsonl" when both are
// plain names that fit (else "sha256-" and the hex of the SHA-256 of the
// id, a NUL and the variant), so one folder holds every variant's.
func CaseFileName(c inference.Case) string {
	if c.Variant == "" {
		return FileName(c.ID)
	}
	if safeID(c.ID) && safeID(c.Variant) && len(c.ID)+1+len(c.Variant)+len(".jsonl") <= maxNameBytes {
		return c.ID + "@" + c.Variant + ".jsonl"
	}
	sum := sha256.Sum256([]byte(c.ID + "\x00" + c.Variant))
	return "sha256-" + hex.EncodeToString(sum[:]) + ".jsonl"
}

// maxNameBytes is the longest file name the file systems murmur-eval runs
// on accept.
const maxNameBytes = 255

func safeID(id string) bool {
	if id == "" || id == "." || id == ".." {
		return false
	}
	for _, r := range id {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
		if !ok {
			return false
		}
	}
	return true
}

// ForCase reads and checks the case's whole recording.
func (s *Source) ForCase(ctx context.Context, c inference.Case) (inference.Provider, error) {
	caseID := c.ID
	path := filepath.Join(s.dir, CaseFileName(c))
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errcode.New(errcode.ReplayMissing, "no recording for case %q: %s not found", caseID, path).
				WithHint("record the case with --record, or name the file %s", CaseFileName(c))
		}
		return nil, errcode.Wrap(errcode.IO, err, "read recording %s", path)
	}
	turns, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	return &Provider{path: path, turns: turns, workdir: c.Workdir}, nil
}

// Turn is one recorded model turn.
type Turn struct {
	Response *inference.Response
	// RequestSHA256 is the digest of the request the response answered,
	// "" when the recording does not say.
	RequestSHA256 string
}

// Parse decodes a recording: one canonical response per non-blank line.
// Errors carry E-EVL-012 and "<path>:<line>".
func Parse(path string, data []byte) ([]Turn, error) {
	var turns []Turn
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), len(data)+1)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		turn, err := ParseLine(append([]byte(nil), text...))
		if err != nil {
			return nil, errcode.Wrap(errcode.ReplayInvalid, err, "invalid recorded response").
				At(fmt.Sprintf("%s:%d", path, line))
		}
		turns = append(turns, turn)
	}
	if err := sc.Err(); err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "read recording %s", path)
	}
	return turns, nil
}

// Provider serves one case's recorded turns in order.
type Provider struct {
	path    string
	turns   []Turn
	next    int
	workdir string
}

// Complete returns the next recorded turn; asking past the end is E-EVL-011.
// When the turn was recorded with its request's digest and req's differs,
// obs hears of it; the recorded response is served all the same.
func (p *Provider) Complete(ctx context.Context, req *inference.Request, obs inference.Observer) (*inference.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p.next >= len(p.turns) {
		return nil, errcode.New(errcode.ReplayExhausted,
			"the loop asked for turn %d but %s records only %d turns", p.next, p.path, len(p.turns)).
			WithHint("re-record the case: the capsule now takes more turns than when it was recorded")
	}
	t := p.turns[p.next]
	if t.RequestSHA256 != "" && req != nil {
		if got := inference.RequestDigest(req, p.workdir); got != t.RequestSHA256 {
			obs.Diverged(inference.Divergence{Turn: p.next, Recorded: t.RequestSHA256, Got: got})
		}
	}
	p.next++
	return t.Response, nil
}
