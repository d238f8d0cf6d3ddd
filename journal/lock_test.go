package journal

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestLockIsExclusive: while one holder has the run folder, a second
// Acquire and a Share are refused at once with the holder's pid; after
// Unlock both succeed. flock locks belong to an open file, so two opens in
// one process contend as two processes do.
func TestLockIsExclusive(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	pid := "pid " + strconv.Itoa(os.Getpid())
	for name, try := range map[string]func(string) (*Lock, error){"Acquire": Acquire, "Share": Share} {
		_, err := try(dir)
		if !errcode.Is(err, errcode.RunFolderLocked) || !strings.Contains(err.Error(), pid) {
			t.Errorf("%s of a held folder = %v, want %s naming %s", name, err, errcode.RunFolderLocked, pid)
		}
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	s, err := Share(dir)
	if err != nil {
		t.Fatalf("Share after Unlock: %v", err)
	}
	if _, err := Acquire(dir); !errcode.Is(err, errcode.RunFolderLocked) {
		t.Errorf("Acquire while shared = %v, want %s", err, errcode.RunFolderLocked)
	}
	s.Unlock()
	l, err = Acquire(dir)
	if err != nil {
		t.Fatalf("Acquire after both released: %v", err)
	}
	l.Unlock()
}

// TestShareOfAnUnlockedFolder: a folder without a lock file (an older run)
// is read unlocked, and Share creates nothing there.
func TestShareOfAnUnlockedFolder(t *testing.T) {
	dir := t.TempDir()
	l, err := Share(dir)
	if err != nil {
		t.Fatal(err)
	}
	l.Unlock()
	if _, err := os.Lstat(filepath.Join(dir, LockFile)); !os.IsNotExist(err) {
		t.Errorf("Share created %s: %v", LockFile, err)
	}
}

// TestLockRefusesLinksAndFIFOs: a lock file that is a symbolic link (to a
// file elsewhere, or dangling) or a FIFO is refused, and nothing is
// created or written through the link.
func TestLockRefusesLinksAndFIFOs(t *testing.T) {
	for _, kind := range []string{"link", "dangling", "fifo"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			target := filepath.Join(t.TempDir(), "host-file")
			lock := filepath.Join(dir, LockFile)
			switch kind {
			case "link":
				if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, lock); err != nil {
					t.Fatal(err)
				}
			case "dangling":
				if err := os.Symlink(target, lock); err != nil {
					t.Fatal(err)
				}
			case "fifo":
				if err := syscall.Mkfifo(lock, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := Acquire(dir); !errcode.Is(err, errcode.IO) {
				t.Errorf("Acquire = %v, want %s", err, errcode.IO)
			}
			if _, err := Share(dir); !errcode.Is(err, errcode.IO) {
				t.Errorf("Share = %v, want %s", err, errcode.IO)
			}
			b, err := os.ReadFile(target)
			switch kind {
			case "link":
				if string(b) != "keep" {
					t.Errorf("the link's target changed: %q", b)
				}
			case "dangling":
				if !os.IsNotExist(err) {
					t.Errorf("the dangling link's target was created")
				}
			}
		})
	}
}
