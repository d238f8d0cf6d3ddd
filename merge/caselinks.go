package merge

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/runfolder"
)

// linkCases links each attempt of records whose session folder is kept
// (in a shard's folder) under the merged folder dir's cases/, as the run
// command links its own: a merged run's cases are found by case id too.
// A link that cannot be made is said once on stderr; the merge goes on
// (the rows name every session folder).
func linkCases(dir string, records []journal.Record, stderr io.Writer) {
	dirAbs, err := filepath.Abs(dir)
	if err != nil {
		return
	}
	warned := false
	for _, r := range records {
		for _, a := range r.Attempts {
			res := a.Result
			if res.SessionDir == "" {
				continue
			}
			session := filepath.FromSlash(res.SessionDir)
			if !filepath.IsAbs(session) {
				session = filepath.Join(dirAbs, session)
			}
			if fi, err := os.Stat(session); err != nil || !fi.IsDir() {
				continue // not kept (--keep-sessions), or the shard moved
			}
			if err := runfolder.LinkCase(dirAbs, res.CaseID, int(res.Epoch), int(res.Attempt), session); err != nil && !warned {
				warned = true
				fmt.Fprintf(stderr, "murmur-eval merge: warning: session folders are not linked by case id in %s/: %v\n", runfolder.CasesDir, err)
			}
		}
	}
}
