package runfolder

import (
	"os"
	"path/filepath"
	"strings"
)

// SessionsDir is the run folder's folder of session folders, one per case
// attempt, named by session id.
const SessionsDir = "sessions"

// SessionFolder finds the session folder of a case attempt (of a variant,
// "" for none) of the run
// folder runDir: its link under cases/ (which `merge` points at the shard
// runs' folders), else sessions/<sessionID>. ok is false when neither is a
// folder (the session was not kept, or the run folder was copied without
// it). A session id that is not one plain name is never joined.
func SessionFolder(runDir, caseID, variant string, epoch, attempt int, sessionID string) (dir string, ok bool) {
	link := filepath.Join(runDir, CasesDir, VariantLinkName(caseID, variant, epoch, attempt))
	if fi, err := os.Stat(link); err == nil && fi.IsDir() {
		return link, true
	}
	if sessionID == "" || !filepath.IsLocal(sessionID) || strings.ContainsAny(sessionID, `/\`) {
		return "", false
	}
	dir = filepath.Join(runDir, SessionsDir, sessionID)
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return dir, true
	}
	return "", false
}
