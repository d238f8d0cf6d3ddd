package sandbox

import (
	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/experimental/sysfs"
)

// noSymlinkFS is a host directory in which the guest may not create
// symlinks. wazero's DirFS refuses absolute link targets but writes relative
// ones verbatim, and the host kernel then follows "../../etc/passwd" out of
// the mount. Links that the harness itself stages are still followed.
type noSymlinkFS struct{ experimentalsys.FS }

// Symlink implements experimentalsys.FS by refusing.
func (noSymlinkFS) Symlink(_, _ string) experimentalsys.Errno { return experimentalsys.EPERM }

// dirFS returns dir as a guest file system.
func dirFS(dir string) experimentalsys.FS { return noSymlinkFS{sysfs.DirFS(dir)} }
