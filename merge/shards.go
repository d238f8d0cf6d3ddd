// Package merge combines the run folders of the shards of one run into
// one run folder, as if the run had not been sharded: the shards' journals
// read whole and checked as --resume checks a journal, their
// configurations compared, the (case, epoch) pairs no shard ran listed,
// and the merged folder's files written as the run command writes them.
package merge

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/runfolder"
)

// Shard is one shard's run folder as merge reads it.
type Shard struct {
	Dir     string
	Run     journal.Run
	Records []journal.Record
}

// ReadShards reads the shard folders dirs (ReadShard), each under a shared
// lock held until release is called: a shard still running (or being
// resumed) is refused, and none can start while merge reads. On an error
// nothing is held.
func ReadShards(dirs []string) (shards []Shard, release func(), err error) {
	var locks []*journal.Lock
	release = func() {
		for _, l := range locks {
			_ = l.Unlock()
		}
	}
	shards = make([]Shard, len(dirs))
	for i, dir := range dirs {
		lock, err := journal.Share(dir)
		if err != nil {
			release()
			return nil, nil, err
		}
		locks = append(locks, lock)
		if shards[i], err = ReadShard(dir); err != nil {
			release()
			return nil, nil, err
		}
	}
	return shards, release, nil
}

// ReadShard reads a shard's run.json and journal. A journal that cannot be
// read whole (a bad line, a torn last line) is refused at its file:line:
// a merge of part of a shard would silently drop cases.
func ReadShard(dir string) (Shard, error) {
	run, err := journal.ReadRun(dir)
	if err != nil {
		return Shard{}, err
	}
	path := filepath.Join(dir, runfolder.JournalFile)
	contents, err := journal.Read(path, journal.InRun(shardBounds(run)))
	if err != nil {
		return Shard{}, err
	}
	if err := contents.Whole(path); err != nil {
		return Shard{}, err
	}
	records, _, err := journal.Records(contents.Entries)
	if err != nil {
		return Shard{}, err
	}
	abs := absPath(dir)
	for i := range records {
		records[i].Rebase(run.RunID, func(rel string) string { return filepath.ToSlash(filepath.Join(abs, filepath.FromSlash(rel))) })
	}
	return Shard{Dir: dir, Run: run, Records: records}, nil
}

// shardBounds is what a shard's journal may name, as --resume checks its
// own (journal.Bounds): the cases of the shard's selection when its
// dataset is there unchanged (any case otherwise: Missing says the
// dataset cannot be checked), epochs 1..--epochs and attempts
// 1..--retries+1 from its run.json. A part run.json lacks leaves that
// bound open.
func shardBounds(run journal.Run) journal.Bounds {
	const open = math.MaxInt32
	b := journal.Bounds{HasCase: func(string) bool { return true }, Epochs: open, Attempts: open}
	if n, err := strconv.Atoi(cmp.Or(run.Inputs["epochs"], run.Config["epochs"])); err == nil && n > 0 {
		b.Epochs = n
	}
	var retries int
	if _, err := fmt.Sscanf(run.Config["flags"], "retries=%d", &retries); err == nil && retries >= 0 {
		b.Attempts = retries + 1
	}
	in := run.Inputs
	if d, err := journal.FileDigest(in["dataset"]); err != nil || d != run.Config["dataset"] {
		return b
	}
	ds, err := datasets.Load(in["dataset"])
	if err != nil {
		return b
	}
	defer ds.Close()
	shard, _ := datasets.ParseShard(run.Config[runfolder.ShardPart])
	limit, _ := strconv.Atoi(in["limit"])
	ids := map[string]struct{}{}
	for c := range (datasets.Selection{Filter: in["filter"], Limit: limit, Shard: shard}).Apply(ds).All() {
		ids[ds.ID(c)] = struct{}{}
	}
	b.HasCase = func(id string) bool {
		_, ok := ids[id]
		return ok
	}
	return b
}

// Combine checks that the shards are of one configuration and do not
// overlap, and returns their records by case and epoch.
func Combine(shards []Shard) ([]journal.Record, error) {
	first := shards[0]
	owner := map[journal.Key]string{}
	var all []journal.Record
	for _, s := range shards {
		cur := runfolder.WithoutShard(s.Run.Config)
		if changed := journal.Changed(runfolder.WithoutShard(first.Run.Config), cur); len(changed) > 0 {
			return nil, errcode.New(errcode.Usage, "merge: %s and %s are runs of different configurations: %s differ", first.Dir, s.Dir, strings.Join(changed, ", ")).
				WithHint("merge only the shards of one run: same capsule, dataset, recordings and flags")
		}
		for _, r := range s.Records {
			k := r.Key()
			if prev, dup := owner[k]; dup {
				return nil, errcode.New(errcode.Usage, "merge: case %q epoch %d is in both %s and %s", k.CaseID, k.Epoch, prev, s.Dir).
					WithHint("shards must not overlap: run each --shard I/N once, and merge each shard folder once")
			}
			owner[k] = s.Dir
			all = append(all, r)
		}
	}
	slices.SortFunc(all, func(a, b journal.Record) int {
		x, y := a.Final().Result, b.Final().Result
		return cmp.Or(strings.Compare(x.CaseID, y.CaseID), cmp.Compare(x.Epoch, y.Epoch), strings.Compare(a.Key().Variant, b.Key().Variant))
	})
	return all, nil
}

// variantsOf is the variants the records ran (--models, --variants), in
// the order first met; one "" for a run without. A shard splits cases,
// never a case's variants, so every shard ran every variant; one that no
// shard ran at all is not in the run folders and cannot be missed.
func variantsOf(records []journal.Record) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range records {
		if v := r.Key().Variant; v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return []string{""}
	}
	return out
}

// variantWords names a variant in a missing pair's line; "" for none.
func variantWords(v string) string {
	if v == "" {
		return ""
	}
	return fmt.Sprintf(" variant %q", v)
}

// CheckMissing prints the (case, epoch) pairs no shard ran (the first
// 20), as warnings with allowMissing, and otherwise refuses them with
// errcode.MergeIncomplete.
func CheckMissing(stderr io.Writer, missing []string, planned int, allowMissing bool) error {
	level := "error"
	if allowMissing {
		level = "warning"
	}
	for _, m := range missing[:min(len(missing), 20)] {
		fmt.Fprintf(stderr, "murmur-eval merge: %s: missing %s\n", level, m)
	}
	if len(missing) > 20 {
		fmt.Fprintf(stderr, "murmur-eval merge: %s: ... and %d more missing\n", level, len(missing)-20)
	}
	if len(missing) == 0 || allowMissing {
		return nil
	}
	what := fmt.Sprintf("%d of the run's %d (case, epoch) pairs were run by no shard", len(missing), planned)
	if planned < 0 {
		what = "whether the shards cover the run cannot be checked"
	}
	return errcode.New(errcode.MergeIncomplete, "merge: %s; nothing was written", what).
		WithHint("merge every shard's folder (a shard that failed can be finished with --resume), or pass --allow-missing to write an incomplete run")
}

// Missing lists the (case, epoch) pairs of the run's selection that no
// shard ran: the shards' dataset read again (if unchanged), every shard
// index of the run's shard count, every epoch. planned is the number of
// pairs of the whole run; -1 (with one line saying why) when the dataset
// cannot be read again.
func Missing(shards []Shard, records []journal.Record) (missing []string, planned int) {
	first := shards[0].Run
	in := first.Inputs
	if d, err := journal.FileDigest(in["dataset"]); err != nil || d != first.Config["dataset"] {
		return []string{fmt.Sprintf("(cannot check: the dataset %q is gone or changed since the shards ran)", in["dataset"])}, -1
	}
	ds, err := datasets.Load(in["dataset"])
	if err != nil {
		return []string{fmt.Sprintf("(cannot check: %v)", err)}, -1
	}
	defer ds.Close()
	shard, _ := datasets.ParseShard(first.Config[runfolder.ShardPart])
	epochs, _ := strconv.Atoi(in["epochs"])
	limit, _ := strconv.Atoi(in["limit"])
	have := map[journal.Key]bool{}
	for _, r := range records {
		have[r.Key()] = true
	}
	variants := variantsOf(records)
	for i := range max(1, shard.Count) {
		sel := datasets.Selection{Filter: in["filter"], Limit: limit, Shard: datasets.Shard{Index: i, Count: shard.Count}}
		for c := range sel.Apply(ds).All() {
			id := ds.ID(c)
			for e := 1; e <= max(1, epochs); e++ {
				for _, v := range variants {
					planned++
					if !have[journal.Key{CaseID: id, Epoch: e, Variant: v}] {
						missing = append(missing, fmt.Sprintf("case %q epoch %d%s (shard %d/%d)", id, e, variantWords(v), i, shard.Count))
					}
				}
			}
		}
	}
	return missing, planned
}

// Rebase gives every row of records the merged run's id, and session
// folders (absolute, as ReadShard leaves them) relative to the merged
// folder outAbs when they can be.
func Rebase(records []journal.Record, runID, outAbs string) {
	for i := range records {
		records[i].Rebase(runID, func(abs string) string {
			if rel, err := filepath.Rel(outAbs, filepath.FromSlash(abs)); err == nil {
				return filepath.ToSlash(rel)
			}
			return abs
		})
	}
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
