package staging

import (
	"testing"

	"github.com/murmur-nexus/murmur-eval/datasets/workspace"
)

// TestWorkdirMaxFilesCountsWhatTheCaseAdds: a copied workspace raises the
// file bound by its base's entries (saturating); no workspace and no bound
// (0) leave it as it is.
func TestWorkdirMaxFilesCountsWhatTheCaseAdds(t *testing.T) {
	copied := &Workspace{Base: &workspace.Base{Entries: 1200}}
	for _, tc := range []struct {
		ws         *Workspace
		limit, out uint64
	}{
		{nil, 50_000, 50_000},
		{copied, 50_000, 51_200},
		{copied, 0, 0},
		{copied, ^uint64(0) - 1, ^uint64(0)},
	} {
		if got := tc.ws.WorkdirMaxFiles(tc.limit); got != tc.out {
			t.Errorf("WorkdirMaxFiles(%d) with %v = %d, want %d", tc.limit, tc.ws, got, tc.out)
		}
	}
}
