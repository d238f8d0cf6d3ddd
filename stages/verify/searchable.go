package verify

import (
	"os"
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// searchable checks that an unprivileged user can reach runDir: shell and
// native tools run as such a user (sandbox/process.go), in the session
// folders under runDir, and they name their HOME by its absolute path. A
// folder on the way that others may not search (a 0700 home, a private
// temporary folder) would make every such tool fail with "permission
// denied"; refusing the run up front says why. Folders are not changed:
// they are the user's.
func searchable(runDir string) error {
	abs, err := filepath.Abs(runDir)
	if err != nil {
		return errcode.Wrap(errcode.IO, err, "resolve %s", runDir)
	}
	for dir := abs; ; dir = filepath.Dir(dir) {
		st, err := os.Stat(dir)
		if err != nil {
			return errcode.Wrap(errcode.IO, err, "check %s", dir)
		}
		if st.Mode().Perm()&0o001 == 0 {
			return errcode.New(errcode.IOPermission,
				"shell and native tools run as an unprivileged user, who cannot search %s (mode %#o) to reach the run folder %s", dir, st.Mode().Perm(), abs).
				WithHint("choose an --out under folders others may search (chmod o+x %s, or an --out below /tmp)", dir)
		}
		if dir == filepath.Dir(dir) {
			return nil
		}
	}
}
