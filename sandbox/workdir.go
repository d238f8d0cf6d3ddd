package sandbox

import (
	"errors"
	"io/fs"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
)

// workdirPoll is how often a running subprocess's session dir is measured.
// murmur measures every 10 s; a disk filler writes gigabytes in that time.
const workdirPoll = 250 * time.Millisecond

// measureTries is how often CheckWorkdir measures a folder that keeps
// changing under the walk (sessionfs.ErrChanged) before it calls that a
// breach: a tool moving deep folders around must not hide bytes.
const measureTries = 3

// DirSize is the bytes under dir as sessionfs.Size counts them: regular
// files and symlinks by size, once per link, folders by their own size,
// at any depth, following no symlinks. It is what a measurement that
// failed got to (0 when dir is missing).
func DirSize(dir string) uint64 {
	n, _ := sessionfs.Size(dir, 0)
	return n
}

// WorkdirError is murmur's E-RUN-013.
func WorkdirError(size, limit uint64) error {
	return errcode.New(errcode.RunWorkdirSize,
		"session workdir grew to %d bytes, past the %d byte ceiling (capabilities.resources.workdir_max_bytes)", size, limit).
		WithHint("raise capabilities.resources.workdir_max_bytes or make the tools write less")
}

// CheckWorkdir returns WorkdirError when dir holds more than limit bytes
// (0: no limit). A folder that cannot be measured (unreadable to
// murmur-eval, or moved under the walk on every try) is E-RUN-013 too:
// what cannot be counted is not allowed to grow. A missing dir is empty.
func CheckWorkdir(dir string, limit uint64) error {
	if limit == 0 {
		return nil
	}
	var err error
	for range measureTries {
		var size uint64
		size, err = sessionfs.Size(dir, limit)
		if size > limit {
			return WorkdirError(size, limit)
		}
		if err == nil || errors.Is(err, fs.ErrNotExist) && size == 0 {
			return nil
		}
		if !errors.Is(err, sessionfs.ErrChanged) {
			break
		}
	}
	return errcode.Wrap(errcode.RunWorkdirSize, err, "session workdir cannot be measured against its %d byte ceiling (capabilities.resources.workdir_max_bytes)", limit).
		WithHint("make the tools leave folders murmur-eval can read where they are")
}
