package sandbox

import (
	"errors"
	"io/fs"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
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

// heldError is WorkdirError when part of size is held by deleted files the
// call's processes still have open or mapped: murmur's sentence, then how
// much of it those files hold.
func heldError(size, limit uint64, h Held) error {
	return errcode.New(errcode.RunWorkdirSize,
		"session workdir grew to %d bytes, past the %d byte ceiling (capabilities.resources.workdir_max_bytes); "+
			"%d bytes of it are held by %d deleted files the tool's processes still had open", size, limit, h.Bytes, h.Files).
		WithHint("raise capabilities.resources.workdir_max_bytes or make the tools write less (a deleted file's blocks are freed only when its last descriptor is closed)")
}

// WorkdirFilesError is E-RUN-013 for a session holding more than limit
// entries (--workdir-max-files, a murmur-eval extension).
func WorkdirFilesError(n, limit uint64) error {
	return errcode.New(errcode.RunWorkdirSize,
		"session workdir holds %d files, folders and links, past the bound of %d (--workdir-max-files, a murmur-eval extension)", n, limit).
		WithHint("raise --workdir-max-files or MURMUR_EVAL_WORKDIR_MAX_FILES (0 for no bound), or make the tools create fewer files")
}

// CheckWorkdir returns WorkdirError when dir holds more than limit bytes
// (0: no limit); see CheckSession.
func CheckWorkdir(dir string, limit uint64) error {
	return CheckSession(dir, capsule.Resources{WorkdirMaxBytes: limit})
}

// CheckSession measures dir against r.WorkdirMaxBytes (WorkdirError) and
// r.WorkdirMaxFiles (WorkdirFilesError), in one walk; 0 is no bound. A
// folder that cannot be measured (unreadable to murmur-eval, or moved
// under the walk on every try) is E-RUN-013 too: what cannot be counted is
// not allowed to grow. A missing dir is empty.
func CheckSession(dir string, r capsule.Resources) error {
	return checkUsage(dir, r, Held{})
}

// checkUsage is CheckSession with held, the deleted files a running call
// holds, added to what the walk finds.
func checkUsage(dir string, r capsule.Resources, held Held) error {
	maxBytes, maxFiles := r.WorkdirMaxBytes, r.WorkdirMaxFiles
	if maxBytes == 0 && maxFiles == 0 {
		return nil
	}
	if maxBytes > 0 && held.Bytes > maxBytes {
		return heldError(held.Bytes, maxBytes, held)
	}
	if maxFiles > 0 && held.Files > maxFiles {
		return WorkdirFilesError(held.Files, maxFiles)
	}
	// The walk stops as soon as what it adds to held is past a bound.
	var stopBytes, stopFiles uint64
	if maxBytes > 0 {
		stopBytes = max(maxBytes-held.Bytes, 1)
	}
	if maxFiles > 0 {
		stopFiles = max(maxFiles-held.Files, 1)
	}
	var err error
	for range measureTries {
		var u sessionfs.Usage
		u, err = sessionfs.Measure(dir, stopBytes, stopFiles)
		if size := u.Bytes + held.Bytes; maxBytes > 0 && size > maxBytes {
			if held.Bytes > 0 {
				return heldError(size, maxBytes, held)
			}
			return WorkdirError(size, maxBytes)
		}
		if n := u.Entries + held.Files; maxFiles > 0 && n > maxFiles {
			return WorkdirFilesError(n, maxFiles)
		}
		if err == nil || errors.Is(err, fs.ErrNotExist) && u.Bytes == 0 {
			return nil
		}
		if !errors.Is(err, sessionfs.ErrChanged) {
			break
		}
	}
	if maxBytes == 0 {
		return errcode.Wrap(errcode.RunWorkdirSize, err, "session workdir cannot be measured against its bound of %d files (--workdir-max-files)", maxFiles).
			WithHint("make the tools leave folders murmur-eval can read where they are")
	}
	return errcode.Wrap(errcode.RunWorkdirSize, err, "session workdir cannot be measured against its %d byte ceiling (capabilities.resources.workdir_max_bytes)", maxBytes).
		WithHint("make the tools leave folders murmur-eval can read where they are")
}
