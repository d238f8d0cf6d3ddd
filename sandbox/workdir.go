package sandbox

import (
	"io/fs"
	"path/filepath"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// workdirPoll is how often a running subprocess's session dir is measured.
// murmur measures every 10 s; a disk filler writes gigabytes in that time.
const workdirPoll = 250 * time.Millisecond

// DirSize sums the sizes of the regular files under dir, following no
// symlinks; files that vanish while it walks are skipped. Hard links count
// once per link, as murmur's guard counts them.
func DirSize(dir string) uint64 {
	var n uint64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err == nil {
			n += uint64(info.Size())
		}
		return nil
	})
	return n
}

// WorkdirError is murmur's E-RUN-013.
func WorkdirError(size, limit uint64) error {
	return errcode.New(errcode.RunWorkdirSize,
		"session workdir grew to %d bytes, past the %d byte ceiling (capabilities.resources.workdir_max_bytes)", size, limit).
		WithHint("raise capabilities.resources.workdir_max_bytes or make the tools write less")
}

// CheckWorkdir returns WorkdirError when dir holds more than limit bytes
// (0: no limit).
func CheckWorkdir(dir string, limit uint64) error {
	if limit == 0 {
		return nil
	}
	if size := DirSize(dir); size > limit {
		return WorkdirError(size, limit)
	}
	return nil
}
