package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/trace"
)

const mergeUsage = `Usage: murmur-eval merge -o OUT SHARD_RUN...

Combines the run folders of the shards of one run (--shard I/N, or a
Kubernetes Indexed Job, or a GitHub Actions matrix) into one run folder,
as if the run had not been sharded: results, scores and events Parquet,
summary.json, summary.md, junit.xml, journal.jsonl and run.json. Rows get
the merged run's id; session_dir points into the shard folders.

Refuses shards of different configurations (capsule, lock, artifacts,
dataset, recordings, selection, epochs, flags), shards that ran the same
(case, epoch), a shard still running (its folder's lock is held), and a
journal it cannot read whole (named at file:line: --resume that shard
first), and shards that leave (case, epoch) pairs of the run unrun,
listing them (--allow-missing writes such a merge, marked incomplete).
Applies the run's gates to the merged run (--fail-under, --max-error-rate,
--max-divergence, --baseline), with the run command's exit codes.

Flags:
`

// shardRun is one shard's run folder as merge reads it.
type shardRun struct {
	dir     string
	run     journal.Run
	records []caseRecord
}

// runMerge is the merge command.
func runMerge(args []string, env map[string]string, stdout, stderr io.Writer) int {
	var out string
	var passAt []int
	var allowMissing bool
	var gates gateOptions
	var envErrs []error
	fs := pflag.NewFlagSet("murmur-eval merge", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, mergeUsage); fs.PrintDefaults() }
	fs.StringVarP(&out, "out", "o", "", "run folder to create for the merged run")
	fs.IntSliceVar(&passAt, "pass-at", envInts(env, "MURMUR_EVAL_PASS_AT", &envErrs), "report the unbiased pass@k for these k, comma separated (env MURMUR_EVAL_PASS_AT)")
	fs.BoolVar(&allowMissing, "allow-missing", envBool(env, "MURMUR_EVAL_ALLOW_MISSING", false, &envErrs), "write the merged run even when no shard ran some of its (case, epoch) pairs; it is marked incomplete (env MURMUR_EVAL_ALLOW_MISSING)")
	gates.registerRun(fs, env, &envErrs)
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return exitOK
		}
		return usageError(stderr, errcode.New(errcode.Usage, "%v", err).WithHint("%s", "murmur-eval merge --help"))
	}
	if len(envErrs) > 0 {
		return usageError(stderr, envErrs[0])
	}
	if err := gates.validate(); err != nil {
		return usageError(stderr, err)
	}
	lim, err := readLimits(env)
	if err != nil {
		return usageError(stderr, err)
	}
	var baseline *reports.RunData
	if gates.baseline != "" {
		if baseline, err = reports.ReadRunLimited(gates.baseline, lim); err != nil {
			return usageError(stderr, err)
		}
	}
	if out == "" || fs.NArg() == 0 {
		return usageError(stderr, errcode.New(errcode.Usage, "merge needs -o OUT and at least one SHARD_RUN").
			WithHint("murmur-eval merge -o runs/merged runs/shard-0 runs/shard-1 runs/shard-2"))
	}
	shards := make([]shardRun, fs.NArg())
	for i, dir := range fs.Args() {
		// A shared lock for the merge's life: a shard still running (or
		// being resumed) is refused, and none can start while merge reads.
		lock, err := journal.Share(dir)
		if err != nil {
			return usageError(stderr, err)
		}
		defer lock.Unlock()
		s, err := readShard(dir)
		if err != nil {
			return usageError(stderr, err)
		}
		shards[i] = s
	}
	records, err := combineShards(shards)
	if err != nil {
		return usageError(stderr, err)
	}
	missing, planned := missingPairs(shards, records)
	if err := checkMissing(stderr, missing, planned, allowMissing); err != nil {
		return usageError(stderr, err)
	}
	if err := createRunDir(out); err != nil {
		return usageError(stderr, err)
	}
	outLock, err := journal.Acquire(out)
	if err != nil {
		return usageError(stderr, err)
	}
	defer outLock.Unlock()
	outAbs := absPath(out)
	runID := trace.NewID("run_")
	for i := range records {
		records[i].rebase(runID, func(abs string) string {
			if rel, err := filepath.Rel(outAbs, filepath.FromSlash(abs)); err == nil {
				return filepath.ToSlash(rel)
			}
			return abs
		})
	}
	m := merged{outAbs: outAbs, out: out, runID: runID, first: shards[0].run, passAt: passAt, gates: gates, baseline: baseline, limits: lim,
		planned: max(planned, len(records)), missing: len(missing) > 0}
	return m.write(records, stdout, stderr)
}

// readShard reads a shard's run.json and journal. A journal that cannot be
// read whole (a bad line, a torn last line) is refused at its file:line:
// a merge of part of a shard would silently drop cases.
func readShard(dir string) (shardRun, error) {
	run, err := journal.ReadRun(dir)
	if err != nil {
		return shardRun{}, err
	}
	path := filepath.Join(dir, journalFile)
	contents, err := journal.Read(path, checkInRun(shardBounds(run)))
	if err != nil {
		return shardRun{}, err
	}
	if err := contents.Whole(path); err != nil {
		return shardRun{}, err
	}
	records, _, err := journaled(contents.Entries)
	if err != nil {
		return shardRun{}, err
	}
	abs := absPath(dir)
	for i := range records {
		records[i].rebase(run.RunID, func(rel string) string { return filepath.ToSlash(filepath.Join(abs, filepath.FromSlash(rel))) })
	}
	return shardRun{dir: dir, run: run, records: records}, nil
}

// shardBounds is what a shard's journal may name, as --resume checks its
// own (journal.Bounds): the cases of the shard's selection when its
// dataset is there unchanged (any case otherwise: missingPairs says the
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
	shard, _ := datasets.ParseShard(run.Config[shardPart])
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

// combineShards checks that the shards are of one configuration and do not
// overlap, and returns their records by case and epoch.
func combineShards(shards []shardRun) ([]caseRecord, error) {
	first := shards[0]
	owner := map[journal.Key]string{}
	var all []caseRecord
	for _, s := range shards {
		cur := withoutShard(s.run.Config)
		if changed := journal.Changed(withoutShard(first.run.Config), cur); len(changed) > 0 {
			return nil, errcode.New(errcode.Usage, "merge: %s and %s are runs of different configurations: %s differ", first.dir, s.dir, strings.Join(changed, ", ")).
				WithHint("merge only the shards of one run: same capsule, dataset, recordings and flags")
		}
		for _, r := range s.records {
			k := r.key()
			if prev, dup := owner[k]; dup {
				return nil, errcode.New(errcode.Usage, "merge: case %q epoch %d is in both %s and %s", k.CaseID, k.Epoch, prev, s.dir).
					WithHint("shards must not overlap: run each --shard I/N once, and merge each shard folder once")
			}
			owner[k] = s.dir
			all = append(all, r)
		}
	}
	slices.SortFunc(all, func(a, b caseRecord) int {
		x, y := a.final().Result, b.final().Result
		return cmp.Or(strings.Compare(x.CaseID, y.CaseID), cmp.Compare(x.Epoch, y.Epoch))
	})
	return all, nil
}

func withoutShard(parts map[string]string) map[string]string {
	m := make(map[string]string, len(parts))
	for k, v := range parts {
		if k != shardPart {
			m[k] = v
		}
	}
	return m
}

// checkMissing prints the (case, epoch) pairs no shard ran (the first
// 20), as warnings with allowMissing, and otherwise refuses them with
// errcode.MergeIncomplete.
func checkMissing(stderr io.Writer, missing []string, planned int, allowMissing bool) error {
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

// missingPairs lists the (case, epoch) pairs of the run's selection that no
// shard ran: the shards' dataset read again (if unchanged), every shard
// index of the run's shard count, every epoch. planned is the number of
// pairs of the whole run; -1 (with one line saying why) when the dataset
// cannot be read again.
func missingPairs(shards []shardRun, records []caseRecord) (missing []string, planned int) {
	first := shards[0].run
	in := first.Inputs
	if d, err := journal.FileDigest(in["dataset"]); err != nil || d != first.Config["dataset"] {
		return []string{fmt.Sprintf("(cannot check: the dataset %q is gone or changed since the shards ran)", in["dataset"])}, -1
	}
	ds, err := datasets.Load(in["dataset"])
	if err != nil {
		return []string{fmt.Sprintf("(cannot check: %v)", err)}, -1
	}
	defer ds.Close()
	shard, _ := datasets.ParseShard(first.Config[shardPart])
	epochs, _ := strconv.Atoi(in["epochs"])
	limit, _ := strconv.Atoi(in["limit"])
	have := map[journal.Key]bool{}
	for _, r := range records {
		have[r.key()] = true
	}
	for i := range max(1, shard.Count) {
		sel := datasets.Selection{Filter: in["filter"], Limit: limit, Shard: datasets.Shard{Index: i, Count: shard.Count}}
		for c := range sel.Apply(ds).All() {
			id := ds.ID(c)
			for e := 1; e <= max(1, epochs); e++ {
				planned++
				if !have[journal.Key{CaseID: id, Epoch: e}] {
					missing = append(missing, fmt.Sprintf("case %q epoch %d (shard %d/%d)", id, e, i, shard.Count))
				}
			}
		}
	}
	return missing, planned
}
