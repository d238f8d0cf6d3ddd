// Package record tees a live model source into recordings that
// inference/replay serves: one file per case in a directory, named by
// replay.FileName, one line per answered turn, each line the canonical
// response the loop received plus the request's digest (request_sha256).
//
// A case's file is written only by that case's goroutine, one whole line
// per write on a file opened for appending, so cases running in parallel
// never interleave. A turn that ends in an error is not recorded: the
// recording format holds responses only.
package record

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/replay"
)

// Source wraps another Source and records what its providers answer. It is
// safe for concurrent use.
type Source struct {
	dir   string
	inner inference.Source

	mu      sync.Mutex
	claimed map[string]bool // file names a case of this run records into
}

// New records inner's answers into dir, creating it if needed.
func New(dir string, inner inference.Source) (*Source, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "create --record folder %s", dir)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "--record folder %s", dir)
	}
	if !st.IsDir() {
		return nil, errcode.New(errcode.Usage, "--record %s is not a directory", dir)
	}
	return &Source{dir: dir, inner: inner, claimed: map[string]bool{}}, nil
}

// ForCase returns the inner provider, recording into the case's file. The
// first case of the run with an id records it (any older file of that name
// is removed); a later case with the same id (another epoch) is served
// without recording, so every epoch replays the first one's turns.
func (s *Source) ForCase(ctx context.Context, c inference.Case) (inference.Provider, error) {
	p, err := s.inner.ForCase(ctx, c)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, errcode.New(errcode.Usage, "--record cannot record a transport: process capsule: its CLI calls its model itself").
			WithHint("run without --record; a process capsule's turns are in each session's trace.jsonl")
	}
	name := replay.CaseFileName(c)
	if !s.claim(name) {
		return p, nil
	}
	path := filepath.Join(s.dir, name)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, errcode.Wrap(errcode.IO, err, "remove old recording %s", path)
	}
	return &provider{inner: p, path: path, workdir: c.Workdir}, nil
}

func (s *Source) claim(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.claimed[name] {
		return false
	}
	s.claimed[name] = true
	return true
}

// provider records one case's turns.
type provider struct {
	inner   inference.Provider
	path    string
	workdir string
}

// Complete asks the inner provider and appends its answer to the recording.
// A recording that cannot be written fails the case: a silently short
// recording would replay as a different run.
func (p *provider) Complete(ctx context.Context, req *inference.Request, obs inference.Observer) (*inference.Response, error) {
	sum := inference.RequestDigest(req, p.workdir)
	resp, err := p.inner.Complete(ctx, req, obs)
	if err != nil {
		return nil, err
	}
	usage := outsideUsage(resp)
	line, err := replay.UsageLine(resp.Raw, usage, sum)
	var compact bytes.Buffer
	if err != nil && json.Compact(&compact, resp.Raw) == nil {
		// A driver may return its JSON on several lines: the recording
		// keeps it on one (its token estimate may differ on replay).
		line, err = replay.UsageLine(compact.Bytes(), usage, sum)
	}
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "record a turn into %s", p.path)
	}
	if err := appendLine(p.path, line); err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "record a turn into %s", p.path)
	}
	return resp, nil
}

// outsideUsage is resp's provider usage when its bytes do not carry it (a
// driver component's turn, whose usage the host read from the provider's
// answer), so the recording keeps it; nil otherwise.
func outsideUsage(resp *inference.Response) *inference.Usage {
	if resp.Usage == nil {
		return nil
	}
	if own, err := inference.ParseResponse(resp.Raw); err == nil && own.Usage != nil && *own.Usage == *resp.Usage {
		return nil
	}
	return resp.Usage
}

func appendLine(path string, line []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(append(line, '\n'))
	if err := f.Close(); werr == nil {
		werr = err
	}
	return werr
}
