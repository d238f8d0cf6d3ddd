package loop

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/hooks"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// TestReopenKeepsTheSessionFileCode: rewriting task.md in a session folder
// that is gone fails with sessionfs's own code (E-IO-001), which the
// wrapper keeps; it was re-coded E-IO-003 before (issue 34).
func TestReopenKeepsTheSessionFileCode(t *testing.T) {
	tw, err := trace.Create(filepath.Join(t.TempDir(), "trace.jsonl"), "ses_x", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer tw.Close()
	l := &run{tr: tw, dir: filepath.Join(t.TempDir(), "gone")}
	err = l.reopen("task-1", "do it", []hooks.Reopen{{Hook: "judge", Reason: "not yet"}})
	if got := errcode.Code(err); got != errcode.IONotFound {
		t.Errorf("reopen = %v (code %q), want %s", err, got, errcode.IONotFound)
	}
}
