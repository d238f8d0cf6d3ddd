//go:build !linux

package workspace

import (
	"io/fs"
	"os"
)

const oNoFollow = 0

func reflink(dst, src *os.File) error { return errNoReflink }

func stampOf(fs.FileInfo) (stamp, bool) { return stamp{}, false }
