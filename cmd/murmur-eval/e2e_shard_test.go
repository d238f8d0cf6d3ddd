package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/runfolder"
)

// TestShardsMergeIntoTheUnshardedRun runs the quickstart with two epochs
// whole and as three shards (one from a Kubernetes Indexed Job's
// JOB_COMPLETION_INDEX), merges the shards, and compares row for row; an
// overlapping merge is refused and a shard short is reported.
func TestShardsMergeIntoTheUnshardedRun(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	ids := datasetIDs(t, filepath.Join(qs, "cases.jsonl"))
	epochs := []string{"--epochs", "2", "--pass-at", "1,2", "--progress", "none"}
	whole, r := newFixture(t, qs).run(epochs...)
	if r.code != 0 {
		t.Fatalf("unsharded run: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "pass@2: ") {
		t.Errorf("summary text lacks pass@2:\n%s", r.stdout)
	}
	var shards []string
	for i, flags := range [][]string{{"--shard", "0/3"}, {"--shard", "1/3"}, nil} {
		out := filepath.Join(reachableTempDir(t), "run") // named as the whole run: replayed token counts depend on the paths
		f, extra := newFixture(t, qs), append(flags, epochs...)
		if flags == nil {
			f, extra = f.with(withEnv("JOB_COMPLETION_INDEX=2")), append(extra, "--shard-count", "3")
		}
		if r := f.runInto(out, extra...); r.code != 0 {
			t.Fatalf("shard %d: exit %d\nstderr:\n%s", i, r.code, r.stderr)
		}
		if n := len(readParquet(t, filepath.Join(out, "results.parquet")).Rows); n == 0 || n == 2*len(ids) {
			t.Errorf("shard %d has %d rows: not a proper shard of %d", i, n, 2*len(ids))
		}
		shards = append(shards, out)
	}

	merged := filepath.Join(t.TempDir(), "merged")
	m := runBinary(t, append([]string{"merge", "-o", merged, "--pass-at", "1,2"}, shards...)...)
	if m.code != 0 || strings.Contains(m.stderr, "missing") {
		t.Fatalf("merge: exit %d\nstderr:\n%s", m.code, m.stderr)
	}
	// Each kept session folder, in its shard's folder, is found by case id
	// in the merged run too.
	linked := 0
	for _, row := range readParquet(t, filepath.Join(merged, "results.parquet")).Rows {
		session := filepath.Join(merged, filepath.FromSlash(row["session_dir"].(string)))
		want, err := os.Stat(session)
		if err != nil {
			continue // not kept
		}
		name := runfolder.CaseLinkName(row["case_id"].(string), int(row["epoch"].(int32)), int(row["attempt"].(int32)))
		if got, err := os.Stat(filepath.Join(merged, runfolder.CasesDir, name)); err != nil || !os.SameFile(want, got) {
			t.Errorf("merged run: cases/%s does not lead to %s (%v)", name, session, err)
		}
		linked++
	}
	if linked == 0 {
		t.Errorf("merged run: no kept session folder to link")
	}
	want := stableRows(readParquet(t, filepath.Join(whole, "results.parquet")))
	got := stableRows(readParquet(t, filepath.Join(merged, "results.parquet")))
	checkOncePerPair(t, "merged", got, 2*len(ids))
	if diff := gocmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("merged shards differ from the unsharded run (-want +got):\n%s", diff)
	}
	dw, dm := readDigest(t, whole), readDigest(t, merged)
	if diff := gocmp.Diff(dw.PassAtK, dm.PassAtK); diff != "" || len(dw.PassAtK) != 2 {
		t.Errorf("pass@k: unsharded %+v, merged (-whole +merged):\n%s", dw.PassAtK, diff)
	}
	if len(dw.CasePasses) != len(ids) || dw.CasePasses[0].Epochs != 2 {
		t.Errorf("case passes: %+v, want %d cases of 2 epochs", dw.CasePasses, len(ids))
	}

	over := runBinary(t, "merge", "-o", filepath.Join(t.TempDir(), "over"), shards[0], shards[1], shards[0])
	if over.code != exitUsage || !strings.Contains(over.stderr, "is in both") {
		t.Errorf("overlapping merge: exit %d, want %d\nstderr:\n%s", over.code, exitUsage, over.stderr)
	}
	// A shard short is not a green merge: refused (E-EVL-004) naming the
	// missing cases, unless --allow-missing, which writes a run marked
	// incomplete.
	short := runBinary(t, "merge", "-o", filepath.Join(t.TempDir(), "short"), shards[0], shards[1])
	if short.code != exitUsage || !hasCode(short.stderr, errcode.MergeIncomplete) || !strings.Contains(short.stderr, "(shard 2/3)") {
		t.Errorf("merge without shard 2: exit %d, want %d with %s and the missing cases of shard 2\nstderr:\n%s", short.code, exitUsage, errcode.MergeIncomplete, short.stderr)
	}
	allowed := filepath.Join(t.TempDir(), "allowed")
	if r := runBinary(t, "merge", "-o", allowed, "--allow-missing", shards[0], shards[1]); r.code != 0 || !strings.Contains(r.stdout, "Incomplete (shards missing): ") {
		t.Errorf("merge --allow-missing without shard 2: exit %d, want 0 saying it is incomplete\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if d := readDigest(t, allowed); d.Complete || d.Planned != 2*len(ids) || d.Ran >= d.Planned || d.Stopped != reports.StoppedShardsMissing {
		t.Errorf("summary.json of an incomplete merge: complete %v, planned %d, ran %d, stopped %q", d.Complete, d.Planned, d.Ran, d.Stopped)
	}
	if d := readDigest(t, merged); !d.Complete || d.Planned != 2*len(ids) || d.Ran != d.Planned {
		t.Errorf("summary.json of the whole merge: complete %v, planned %d, ran %d", d.Complete, d.Planned, d.Ran)
	}
}
