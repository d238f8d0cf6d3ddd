package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/datasets/workspace"
	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestWorkspaceGuardCountsWhatTheCaseAdds: workdir_max_bytes (100 KB here)
// counts what a case adds, not its workspace (300 KB, past the limit): on
// an overlay the guard measures the case's upper layer, on a copy the
// limit is raised by the base's size. A case that adds 20 KB passes; one
// that adds 300 KB is stopped with E-RUN-013, on either mechanism; one
// that deletes the base's 300 KB and adds 150 KB is stopped on an overlay
// only (before the upper-layer guard it passed there too).
func TestWorkspaceGuardCountsWhatTheCaseAdds(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("overlays need root")
	}
	e2eBinary(t)
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	if err := os.MkdirAll(filepath.Join(repo, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "d", "big.bin"), make([]byte, 300_000), 0o644); err != nil {
		t.Fatal(err)
	}
	workspaceDataset(t, dir, []wsCase{
		{id: "small", workspace: "repo", bash: "printf '%*s' 20000 '' > d/small.bin", check: "test -s d/small.bin"},
		{id: "big", workspace: "repo", bash: "printf '%*s' 300000 '' > d/added.bin"},
		// Deleting the base's file frees room on a copy (the whole session
		// is measured) but not on an overlay (the base is not the case's).
		{id: "swap", workspace: "repo", bash: "rm d/big.bin; printf '%*s' 150000 '' > d/new.bin"},
	})
	capsule := strings.Replace(workspaceCapsule, "capabilities:\n", "capabilities:\n  resources:\n    workdir_max_bytes: 100000\n", 1)
	if err := os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(capsule), 0o644); err != nil {
		t.Fatal(err)
	}
	runWorkspace(t, dir, filepath.Join(reachableTempDir(t), "warm-up"), nil) // writes murmur.lock
	for _, mech := range []string{"overlay", "copy"} {
		out := filepath.Join(reachableTempDir(t), mech)
		res := runWorkspace(t, dir, out, []string{workspace.CloneEnv + "=" + mech})
		rows := readParquet(t, filepath.Join(out, "results.parquet")).Rows
		if len(rows) != 3 {
			t.Fatalf("%s: %d rows, want 3\n%s", mech, len(rows), res.stderr)
		}
		for _, row := range rows {
			switch id := fmt.Sprint(row["case_id"]); id {
			case "small":
				if row["status"] != "passed" {
					t.Errorf("%s small: %v %v %v", mech, row["status"], row["error_code"], row["error_message"])
				}
			case "swap":
				if stopped := row["error_code"] == errcode.RunWorkdirSize; stopped != (mech == "overlay") {
					t.Errorf("%s swap: %v %v %v (stopped only on an overlay)", mech, row["status"], row["error_code"], row["error_message"])
				}
			case "big":
				if row["error_code"] != errcode.RunWorkdirSize {
					t.Errorf("%s big: %v %v %v, want %s", mech, row["status"], row["error_code"], row["error_message"], errcode.RunWorkdirSize)
				}
			}
		}
	}
}
