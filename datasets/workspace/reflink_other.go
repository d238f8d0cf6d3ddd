//go:build !linux

package workspace

import "os"

const oNoFollow = 0

func reflink(dst, src *os.File) error { return errNoReflink }
