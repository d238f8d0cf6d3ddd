package staging

import (
	"sync"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
)

// lockWriter writes the project's murmur.lock once per run, after the first
// case staged successfully, as `mur eval run` does: one entry per registry
// artifact in manifest order, pinned to the version staged and the SHA-256
// of its verified zip. A failed write is retried by the next case and never
// fails one; an existing lock is never replaced (capsule.WriteLock).
type lockWriter struct {
	mu      sync.Mutex
	done    bool
	written bool
	err     error
}

func (w *lockWriter) write(m *capsule.Manifest, arts []verify.Artifact) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	lock := &capsule.Lock{Path: capsule.LockPath(m.Dir), LockVersion: capsule.LockVersion,
		Artifacts: make([]capsule.LockEntry, 0, len(arts))}
	for _, a := range arts {
		lock.Artifacts = append(lock.Artifacts, capsule.LockEntry{Name: a.Name, ResolvedVersion: a.Version, SHA256: a.SHA256})
	}
	w.written, w.err = capsule.WriteLock(lock)
	w.done = w.err == nil
}

func (w *lockWriter) result() (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.written, w.err
}
