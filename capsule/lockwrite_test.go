package capsule

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func TestWriteLockRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "project")
	lock := &Lock{Path: LockPath(dir), LockVersion: 1, Artifacts: []LockEntry{
		{Name: "calc", ResolvedVersion: "1.10", SHA256: sumA},
		{Name: "murmur-driver-anthropic", ResolvedVersion: "0.3.33", SHA256: "bbbb"},
	}}
	written, err := WriteLock(lock)
	if err != nil || !written {
		t.Fatalf("WriteLock = %v, %v; want written", written, err)
	}
	got, err := ReadLock(lock.Path)
	if err != nil {
		t.Fatalf("ReadLock: %v", err)
	}
	if diff := cmp.Diff(lock, got); diff != "" {
		t.Errorf("lock mismatch after a round trip (-want +got):\n%s", diff)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".murmur.lock.*.tmp"))
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %q", left)
	}

	// An existing lock is never rewritten.
	other := &Lock{Path: lock.Path, LockVersion: 1, Artifacts: []LockEntry{}}
	if written, err := WriteLock(other); err != nil || written {
		t.Errorf("WriteLock over an existing lock = %v, %v; want not written", written, err)
	}
	if again, _ := ReadLock(lock.Path); len(again.Artifacts) != 2 {
		t.Errorf("existing lock was replaced: %+v", again)
	}
}

func TestWriteLockEmpty(t *testing.T) {
	lock := &Lock{Path: LockPath(t.TempDir()), LockVersion: 1}
	if _, err := WriteLock(lock); err != nil {
		t.Fatalf("WriteLock: %v", err)
	}
	data, err := os.ReadFile(lock.Path)
	if err != nil || string(data) != "lock_version: 1\nartifacts: []\n" {
		t.Errorf("lock = %q, %v", data, err)
	}
}

func TestWriteLockRefusesInvalid(t *testing.T) {
	dir := t.TempDir()
	for name, l := range map[string]*Lock{
		"version 2":     {LockVersion: 2},
		"blank name":    {LockVersion: 1, Artifacts: []LockEntry{{Name: " ", ResolvedVersion: "1", SHA256: "a"}}},
		"blank version": {LockVersion: 1, Artifacts: []LockEntry{{Name: "a", SHA256: "a"}}},
		"blank sha":     {LockVersion: 1, Artifacts: []LockEntry{{Name: "a", ResolvedVersion: "1"}}},
	} {
		l.Path = LockPath(dir)
		if _, err := WriteLock(l); errcode.Code(err) != errcode.RunLock {
			t.Errorf("%s: code = %q, want %q (error: %v)", name, errcode.Code(err), errcode.RunLock, err)
		}
	}
	if _, err := os.Stat(LockPath(dir)); !os.IsNotExist(err) {
		t.Errorf("an invalid lock was written: %v", err)
	}
	// A parent that cannot be created is an I/O error.
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ok := &Lock{Path: filepath.Join(file, LockFile), LockVersion: 1}
	if _, err := WriteLock(ok); errcode.Code(err) != errcode.IO {
		t.Errorf("bad parent: code = %q, want %q (error: %v)", errcode.Code(err), errcode.IO, err)
	}
}

// Hammer: many writers at once, exactly one lock, written once, whole.
func TestWriteLockConcurrent(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for i := range 32 {
		wg.Go(func() {
			l := &Lock{Path: LockPath(dir), LockVersion: 1, Artifacts: []LockEntry{{Name: "a", ResolvedVersion: string(rune('a' + i%26)), SHA256: sumA}}}
			written, err := WriteLock(l)
			if err != nil {
				t.Errorf("WriteLock: %v", err)
			}
			if written {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if wins != 1 {
		t.Errorf("%d writers wrote the lock, want 1", wins)
	}
	if l, err := ReadLock(LockPath(dir)); err != nil || len(l.Artifacts) != 1 {
		t.Errorf("ReadLock = %+v, %v", l, err)
	}
}
