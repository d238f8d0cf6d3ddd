package staging

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
)

// TestLaunchFilesKeepTheSessionFileCode: the run's warnings appended to
// logs/bootstrap.log of a session folder that is gone fail with
// sessionfs's own code (E-IO-001), which the wrapper keeps; it was
// re-coded E-IO-003 before (issue 34).
func TestLaunchFilesKeepTheSessionFileCode(t *testing.T) {
	err := launchFiles(filepath.Join(t.TempDir(), "gone"), &verify.Toolset{Warnings: []string{"warning[W-SEC-011]: x"}})
	if got := errcode.Code(err); got != errcode.IONotFound {
		t.Errorf("launchFiles = %v (code %q), want %s", err, got, errcode.IONotFound)
	}
}

// TestStagedCloseWithoutWorkspace: a case without a workspace has nothing
// to release.
func TestStagedCloseWithoutWorkspace(t *testing.T) {
	for _, s := range []*Staged{nil, {}, {Workspace: &Workspace{}}} {
		if err := s.Close(); err != nil {
			t.Errorf("Close(%+v) = %v, want nil", s, err)
		}
	}
}

// TestKeepCode: a coded failure keeps its code under the added context;
// an uncoded one is E-IO-003.
func TestKeepCode(t *testing.T) {
	refused := errcode.New(errcode.SessionFile, "refused")
	for _, tc := range []struct {
		err  error
		want string
	}{{refused, errcode.SessionFile}, {os.ErrClosed, errcode.IO}} {
		err := keepCode(tc.err, "write %s", "task.md")
		if got := errcode.Code(err); got != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("keepCode(%v) = %v (code %q), want %s wrapping it", tc.err, err, got, tc.want)
		}
	}
}
