//go:build !unix

package main

import "io/fs"

// noFollow: no flag on this system (os.Root refuses links out anyway).
const noFollow = 0

// keepOwner does nothing where files have no uid.
func keepOwner(string, fs.FileInfo) error { return nil }
