package sandbox

import (
	"os"
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Reachable refuses, with E-IO-002, a folder the tool user (ToolUID) cannot
// reach: shell and native tools, checks and setup commands run as that
// user in session folders below it and name their HOME by its absolute
// path, so dir and every folder above it must be searchable by others when
// that user is not murmur-eval's own (a 0700 home or private temporary
// folder would fail every such command with "permission denied"). who
// names the commands in the message. Folders are not changed: they are
// the user's.
func Reachable(dir, who string) error {
	if subprocessUID() == os.Getuid() {
		return nil // the commands keep murmur-eval's own uid
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return errcode.Wrap(errcode.IO, err, "resolve %s", dir)
	}
	for d := abs; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil {
			return errcode.Wrap(errcode.IO, err, "reach %s", d)
		}
		if st.Mode().Perm()&0o001 == 0 {
			return errcode.New(errcode.IOPermission,
				"%s run as an unprivileged user, who cannot search %s (mode %#o) to reach %s", who, d, st.Mode().Perm(), abs).
				WithHint("choose an --out under folders others may search (chmod o+x %s, or an --out below /tmp)", d)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}
