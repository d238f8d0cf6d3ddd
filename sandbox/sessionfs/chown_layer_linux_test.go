//go:build linux

package sessionfs

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestChownLayerDirs: only the folders present in the upper layer are
// handed over, through the merged view: a folder of the base (not in
// upper) is not touched, a root-owned folder in upper is given to the
// tool user in the merged view, the skipped tools/ stays, and a merged
// path whose parent a tool swapped for a link to a host folder is not
// followed (the host folder keeps its owner).
func TestChownLayerDirs(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("chown to another uid needs root")
	}
	const uid = 65534
	base := t.TempDir()
	merged, upper, host := filepath.Join(base, "merged"), filepath.Join(base, "upper"), filepath.Join(base, "host")
	for _, d := range []string{
		"merged/old/deep", "merged/new/sub", "merged/tools/t", "merged/link-parent", "host/victim",
		"upper/new/sub", "upper/tools/t", "upper/swapped/victim",
	} {
		must(t, os.MkdirAll(filepath.Join(base, d), 0o755))
	}
	// The tool swapped merged/swapped for a link to the host.
	must(t, os.Symlink(host, filepath.Join(merged, "swapped")))
	must(t, ChownLayerDirs(merged, upper, uid, uid, "tools"))
	owner := func(p string) uint32 {
		t.Helper()
		var st syscall.Stat_t
		must(t, syscall.Lstat(filepath.Join(base, p), &st))
		return st.Uid
	}
	for p, want := range map[string]uint32{
		"merged": uid, "merged/new": uid, "merged/new/sub": uid,
		"merged/old": 0, "merged/old/deep": 0, // the base's: not in upper
		"merged/tools": 0, "merged/tools/t": 0, // skipped
		"host/victim": 0, "host": 0, // never through the link
		"upper/new": 0, // changed through the merged view only
	} {
		if got := owner(p); got != want {
			t.Errorf("%s: owner %d, want %d", p, got, want)
		}
	}
}
