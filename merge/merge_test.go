package merge

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/gates"
	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/runfolder"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// dataset writes a dataset of the cases ids and returns its path.
func dataset(t *testing.T, ids ...string) string {
	t.Helper()
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, "{\"case_id\": %q, \"task\": \"t\"}\n", id)
	}
	p := filepath.Join(t.TempDir(), "cases.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// shardOf is the ids of shard index of count of the dataset at path.
func shardOf(t *testing.T, path string, index, count int) []string {
	t.Helper()
	ds, err := datasets.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	var ids []string
	for i := range (datasets.Selection{Shard: datasets.Shard{Index: index, Count: count}}).Apply(ds).All() {
		ids = append(ids, ds.ID(i))
	}
	return ids
}

// record is a passed case's journal record, in the shard folder dir.
func record(id string) journal.Record {
	sid := trace.NewID("ses_")
	return journal.Record{Attempts: []journal.Attempt{{Result: reports.ResultRow{RunID: "run_shard", CaseID: id, Epoch: 1, Attempt: 1,
		SessionID: sid, SessionDir: "sessions/" + sid, Status: reports.StatusPassed, StartedAt: time.UnixMilli(1_764_446_400_000)}}}}
}

// writeShard writes a shard's run folder: run.json for shard spec of the
// dataset ds (flags being its "flags" part), and a journal of ids' records.
func writeShard(t *testing.T, ds, spec, flags string, ids ...string) string {
	t.Helper()
	dir := t.TempDir()
	digest, err := journal.FileDigest(ds)
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string]string{"dataset": digest, runfolder.ShardPart: spec, "epochs": "1", "flags": flags}
	run := journal.Run{RunID: trace.NewID("run_"), ConfigSHA256: journal.Fingerprint(parts), Config: parts,
		Inputs: map[string]string{"dataset": ds, "epochs": "1", "filter": "", "limit": "0"}}
	if err := journal.WriteRun(dir, run); err != nil {
		t.Fatal(err)
	}
	jw, _, err := journal.Open(filepath.Join(dir, runfolder.JournalFile), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		e, err := record(id).Entry()
		if err != nil {
			t.Fatal(err)
		}
		if err := jw.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := jw.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

const flags = "retries=0 timeout=10m0s check-timeout=1m0s record=false"

// TestMergeShards: two shards of one run combine into every case of the
// run in order, with nothing missing, and are written as one run folder
// with the merged id and no shard in its configuration.
func TestMergeShards(t *testing.T) {
	ds := dataset(t, "a", "b", "c", "d", "e", "f")
	dirs := []string{writeShard(t, ds, "0/2", flags, shardOf(t, ds, 0, 2)...), writeShard(t, ds, "1/2", flags, shardOf(t, ds, 1, 2)...)}
	shards, release, err := ReadShards(dirs)
	if err != nil {
		t.Fatal(errcode.Format(err))
	}
	defer release()
	records, err := Combine(shards)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range records {
		ids = append(ids, r.Key().CaseID)
	}
	if want := []string{"a", "b", "c", "d", "e", "f"}; !slices.Equal(ids, want) {
		t.Errorf("combined %v, want %v", ids, want)
	}
	missing, planned := Missing(shards, records)
	if len(missing) != 0 || planned != 6 {
		t.Errorf("missing %v of %d, want none of 6", missing, planned)
	}

	out := t.TempDir()
	Rebase(records, "run_merged", out)
	if f := records[0].Final().Result; f.RunID != "run_merged" || !strings.HasPrefix(f.SessionDir, "..") {
		t.Errorf("rebased row: run %q session_dir %q, want run_merged and a path into the shard", f.RunID, f.SessionDir)
	}
	w, err := Output{Dir: out, Out: "runs/merged", RunID: "run_merged", First: shards[0].Run, Gates: gates.Options{Alpha: gates.DefaultAlpha, FailUnder: -1},
		Limits: reports.DefaultReadLimits(), Planned: planned, Version: "test"}.Open()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	d, v, err := w.Write(records, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if d.Cases != 6 || !d.Complete || d.Version != "test" || v.BudgetExceeded || v.GateFailed {
		t.Errorf("digest %d cases complete %v version %q, verdict %+v", d.Cases, d.Complete, d.Version, v)
	}
	run, err := journal.ReadRun(out)
	if err != nil {
		t.Fatal(err)
	}
	if run.RunID != "run_merged" || run.Config[runfolder.ShardPart] != "" {
		t.Errorf("run.json: id %q shard %q, want run_merged and none", run.RunID, run.Config[runfolder.ShardPart])
	}
	c, err := journal.Read(filepath.Join(out, runfolder.JournalFile), journal.CheckRecord)
	if err != nil || len(c.Entries) != 6 {
		t.Errorf("merged journal: %d entries, %v; want 6", len(c.Entries), err)
	}
}

// TestMergeRefuses: shards of different configurations, shards that both
// ran a case, a shard still running, a journal line of a case the run does
// not have, and shards that leave cases unrun are each refused with their
// code; --allow-missing only warns of the last.
func TestMergeRefuses(t *testing.T) {
	ds := dataset(t, "a", "b", "c", "d", "e", "f")
	s0, s1 := shardOf(t, ds, 0, 2), shardOf(t, ds, 1, 2)
	read := func(t *testing.T, dirs ...string) []Shard {
		shards, release, err := ReadShards(dirs)
		if err != nil {
			t.Fatal(errcode.Format(err))
		}
		t.Cleanup(release)
		return shards
	}
	t.Run("configurations differ", func(t *testing.T) {
		shards := read(t, writeShard(t, ds, "0/2", flags, s0...), writeShard(t, ds, "1/2", strings.Replace(flags, "record=false", "record=true", 1), s1...))
		if _, err := Combine(shards); errcode.Code(err) != errcode.Usage || !strings.Contains(err.Error(), "flags differ") {
			t.Errorf("error %v, want %s naming flags", err, errcode.Usage)
		}
	})
	t.Run("overlap", func(t *testing.T) {
		shards := read(t, writeShard(t, ds, "", flags, "a", "b"), writeShard(t, ds, "", flags, "c", "a"))
		if _, err := Combine(shards); errcode.Code(err) != errcode.Usage || !strings.Contains(err.Error(), "is in both") {
			t.Errorf("error %v, want %s: in both", err, errcode.Usage)
		}
	})
	t.Run("still running", func(t *testing.T) {
		dir := writeShard(t, ds, "0/2", flags, s0...)
		lock, err := journal.Acquire(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Unlock()
		if _, _, err := ReadShards([]string{dir}); err == nil {
			t.Error("a shard under its run's lock was read")
		}
	})
	t.Run("forged line", func(t *testing.T) {
		dir := writeShard(t, ds, "0/2", flags, append(s0, "not-in-the-dataset")...)
		if _, _, err := ReadShards([]string{dir}); errcode.Code(err) != errcode.JournalCorrupt {
			t.Errorf("code %q, want %s (%v)", errcode.Code(err), errcode.JournalCorrupt, err)
		}
	})
	t.Run("missing", func(t *testing.T) {
		shards := read(t, writeShard(t, ds, "0/2", flags, s0...))
		records, err := Combine(shards)
		if err != nil {
			t.Fatal(err)
		}
		missing, planned := Missing(shards, records)
		if len(missing) != len(s1) || planned != 6 {
			t.Fatalf("missing %v of %d, want %d of 6", missing, planned, len(s1))
		}
		var stderr bytes.Buffer
		if err := CheckMissing(&stderr, missing, planned, false); errcode.Code(err) != errcode.MergeIncomplete {
			t.Errorf("code %q, want %s", errcode.Code(err), errcode.MergeIncomplete)
		}
		if n := strings.Count(stderr.String(), ": error: missing case"); n != len(s1) {
			t.Errorf("%d missing lines, want %d:\n%s", n, len(s1), stderr.String())
		}
		stderr.Reset()
		if err := CheckMissing(&stderr, missing, planned, true); err != nil || !strings.Contains(stderr.String(), "warning: missing") {
			t.Errorf("--allow-missing: %v, stderr %q", err, stderr.String())
		}
	})
	t.Run("dataset changed", func(t *testing.T) {
		shards := read(t, writeShard(t, ds, "0/2", flags, s0...))
		if err := os.WriteFile(ds, []byte("{\"case_id\": \"z\", \"task\": \"t\"}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		missing, planned := Missing(shards, nil)
		if planned != -1 || len(missing) != 1 || !strings.Contains(missing[0], "cannot check") {
			t.Errorf("missing %v of %d, want one 'cannot check' of -1", missing, planned)
		}
	})
}

// TestShardBounds: a shard's journal may name its selection's cases, its
// epochs and its attempts from run.json; what run.json lacks is open.
func TestShardBounds(t *testing.T) {
	ds := dataset(t, "a", "b")
	digest, err := journal.FileDigest(ds)
	if err != nil {
		t.Fatal(err)
	}
	b := shardBounds(journal.Run{Config: map[string]string{"dataset": digest, "epochs": "3", "flags": "retries=2 timeout=1s"},
		Inputs: map[string]string{"dataset": ds, "epochs": "3", "limit": "1"}})
	if !b.HasCase("a") || b.HasCase("b") || b.Epochs != 3 || b.Attempts != 3 {
		t.Errorf("bounds: a %v b %v epochs %d attempts %d; want true false 3 3", b.HasCase("a"), b.HasCase("b"), b.Epochs, b.Attempts)
	}
	open := shardBounds(journal.Run{})
	if !open.HasCase("anything") || open.Epochs < 1<<30 || open.Attempts < 1<<30 {
		t.Errorf("bounds of an empty run.json: %+v, want open", open)
	}
}
