// Package cache is the read-through model-turn cache of --cache DIR: a
// model turn whose request was answered before (by the same model, at the
// same endpoint, through the same driver, in the same epoch) is served
// from DIR; any other is sent on to the model and its answer kept in DIR.
//
// The cache is content-addressed, not ordered as a recording is: each
// answer is one file named by its key (key.go), holding the answer as a
// recording line (entry.go). Files are written whole, to a temporary name
// renamed into place, so cases and runs sharing DIR never see half an
// entry. DIR's contents are untrusted: an entry that does not parse, is
// too large or answers another request is a miss, counted, and replaced by
// the model's answer.
package cache

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
)

// Source serves model turns from a cache folder and the turns it does not
// hold from its inner source. It is safe for concurrent use, and several
// processes may share its folder.
type Source struct {
	dir   string
	inner inference.Source

	hits, misses, corrupt, unwritten atomic.Int64
}

// Stats are what a Source did since New.
type Stats struct {
	Hits   int64 // turns the cache answered
	Misses int64 // turns sent on to the model
	// Corrupt counts the misses whose entry was there but invalid.
	Corrupt int64
	// Unwritten counts the answers that could not be stored (a read-only
	// or full folder); the run goes on without them.
	Unwritten int64
}

// New serves inner's turns through the cache folder dir, creating it if
// needed.
func New(dir string, inner inference.Source) (*Source, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "create --cache folder %s", dir).
			WithHint("pass --cache a folder murmur-eval can create and write")
	}
	st, err := os.Stat(dir)
	if err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "--cache folder %s", dir)
	}
	if !st.IsDir() {
		return nil, errcode.New(errcode.Usage, "--cache %s is not a directory", dir).
			WithHint("pass --cache a folder; murmur-eval creates it when it does not exist")
	}
	return &Source{dir: dir, inner: inner}, nil
}

// Dir is the cache folder.
func (s *Source) Dir() string { return s.dir }

// Stats returns the counts so far.
func (s *Source) Stats() Stats {
	return Stats{Hits: s.hits.Load(), Misses: s.misses.Load(), Corrupt: s.corrupt.Load(), Unwritten: s.unwritten.Load()}
}

// ForCase wraps the inner source's provider for c. A case the inner source
// has no provider for (a transport: process capsule, whose CLI calls its
// model itself) is passed through uncached.
func (s *Source) ForCase(ctx context.Context, c inference.Case) (inference.Provider, error) {
	p, err := s.inner.ForCase(ctx, c)
	if err != nil || p == nil {
		return p, err
	}
	return &provider{src: s, inner: p, scope: scopeOf(c), workdir: c.Workdir}, nil
}

// provider serves one case's turns.
type provider struct {
	src     *Source
	inner   inference.Provider
	scope   []byte
	workdir string
}

// Complete answers req from the cache when its entry is there and valid;
// otherwise it asks the inner provider and stores a cacheable answer. obs
// hears Cached first, then whatever the inner provider reports. An error
// is the inner provider's, never the cache's: a cache that cannot be read
// or written costs a model request, not the case.
func (p *provider) Complete(ctx context.Context, req *inference.Request, obs inference.Observer) (*inference.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	digest := inference.RequestDigest(req, p.workdir)
	path := p.src.path(key(p.scope, digest))
	resp, found, err := load(path, digest)
	if err == nil && found {
		p.src.hits.Add(1)
		obs.Cached(true)
		return resp, nil
	}
	if err != nil {
		p.src.corrupt.Add(1)
	}
	p.src.misses.Add(1)
	obs.Cached(false)
	resp, err = p.inner.Complete(ctx, req, obs)
	if err != nil {
		return nil, err
	}
	if cacheable(resp) {
		if err := store(path, resp, digest); err != nil {
			p.src.unwritten.Add(1)
		}
	}
	return resp, nil
}

// path is the file of key: DIR/<first two hex digits>/<key>.json, so no
// folder holds more than a 256th of the entries.
func (s *Source) path(key string) string {
	return filepath.Join(s.dir, key[:2], key+".json")
}

// cacheable says whether an answer may be served again: not a stop_reason
// "error" answer nor a failed driver's, which say that this attempt
// failed, not what the model answers.
func cacheable(r *inference.Response) bool {
	return r.StopReason != inference.StopError && !r.DriverFailed
}
