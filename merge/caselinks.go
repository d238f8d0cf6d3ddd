package merge

import (
	"fmt"
	"io"

	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/runfolder"
)

// linkCases links each attempt of records whose session folder is kept
// (in a shard's folder) under the merged folder dir's cases/, as the run
// command links its own: a merged run's cases are found by case id too.
// A link that cannot be made is said once on stderr; the merge goes on
// (the rows name every session folder).
func linkCases(dir string, records []journal.Record, stderr io.Writer) {
	if err := runfolder.LinkRecords(dir, records); err != nil {
		fmt.Fprintf(stderr, "murmur-eval merge: warning: session folders are not linked by case id in %s/: %v\n", runfolder.CasesDir, err)
	}
}
