package collect

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/runfolder"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// TestUnlinkMissing: a case link goes when its attempt's session folder
// is gone, pruned or never made, and stays while the folder is there; an
// attempt whose Contain stage ran is taken to have its folder unless
// --keep-sessions pruned it (Stage made it, nothing else removes one), so
// its folder is not looked at.
func TestUnlinkMissing(t *testing.T) {
	ms := 1.5
	for _, tt := range []struct {
		name      string
		keep      string
		status    string
		contained bool // the attempt's Contain stage ran
		folder    bool // the session folder is on disk when unlinkMissing runs
		pruned    bool // prune ran on the record
		wantLink  bool
	}{
		{"refused before it staged", KeepAll, reports.StatusError, false, false, true, false},
		{"failed in Stage, a folder made", KeepAll, reports.StatusError, false, true, true, true},
		{"ran, kept", KeepAll, reports.StatusPassed, true, true, true, true},
		{"ran, its folder pruned", KeepNone, reports.StatusFailed, true, false, true, false},
		{"passed, pruned by failed", KeepFailed, reports.StatusPassed, true, false, true, false},
		{"failed, kept by failed", KeepFailed, reports.StatusFailed, true, true, true, true},
		{"not journaled, so not pruned", KeepNone, reports.StatusError, true, true, false, true},
		{"ran: trusted, not looked at", KeepAll, reports.StatusPassed, true, false, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			sid := trace.NewID("ses_")
			dir := filepath.Join(out, "sessions", sid)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := runfolder.LinkCase(out, "c", "", 1, 1, dir); err != nil {
				t.Fatal(err)
			}
			if !tt.folder {
				if err := os.RemoveAll(dir); err != nil {
					t.Fatal(err)
				}
			}
			row := reports.ResultRow{CaseID: "c", Epoch: 1, Attempt: 1, Status: tt.status, SessionDir: "sessions/" + sid}
			if tt.contained {
				row.ContainMS = &ms
			}
			col := &Collector{OutDir: out, Keep: tt.keep}
			col.unlinkMissing(journal.Record{Attempts: []journal.Attempt{{Result: row}}}, tt.pruned)
			_, err := os.Lstat(filepath.Join(out, runfolder.CasesDir, runfolder.CaseLinkName("c", 1, 1)))
			if got := err == nil; got != tt.wantLink {
				t.Errorf("link kept %v, want %v (%v)", got, tt.wantLink, err)
			}
		})
	}
}
