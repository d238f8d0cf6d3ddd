package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/errcode"
)

// checkSelection refuses a run that would run nothing: an empty dataset,
// or a --filter or --limit that selects none of its cases (E-EVL-003, exit
// 2). A run of no case would pass every gate, which is how a typo in
// --filter turns a CI job green. One shard of a small dataset may be empty
// by construction (8 shards of 3 cases): that is warned about, not
// refused, for merge checks that every (case, epoch) of the run was run.
func checkSelection(ds *datasets.Dataset, b batchOptions, selected datasets.Picked, stderr io.Writer) error {
	if selected.Len() > 0 {
		return nil
	}
	if ds.Len() == 0 {
		return errcode.New(errcode.EmptySelection, "%s holds no case", ds.Path).
			WithHint("a dataset has one JSON object per line: {\"case_id\": \"...\", \"task\": \"...\"}")
	}
	unsharded := b.selection()
	unsharded.Shard = datasets.Shard{}
	if n := unsharded.Apply(ds).Len(); b.shard.Count > 1 && n > 0 {
		fmt.Fprintf(stderr, "murmur-eval: warning: shard %d/%d of %s holds no case (%s selected in all); merge will check that the other shards ran them\n",
			b.shard.Index, b.shard.Count, ds.Path, plural(n, "case"))
		return nil
	}
	what := "--filter " + fmt.Sprintf("%q", b.filter)
	switch {
	case b.filter == "" && b.limit > 0:
		what = fmt.Sprintf("--limit %d", b.limit)
	case b.filter == "":
		what = "the selection"
	}
	return errcode.New(errcode.EmptySelection, "%s matched none of the %s in %s", what, plural(ds.Len(), "case"), ds.Path).
		WithHint("check the glob against the case_id values (murmur-eval matches the whole case_id, e.g. 'calc-*'); a run of no case would pass every gate")
}

// plural formats n with its noun: "1 case", "2 cases".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// pluralWord is noun, or its plural when n is not 1; noun may go on past
// its first word ("case to resume" -> "cases to resume").
func pluralWord(n int, noun string) string {
	if n == 1 {
		return noun
	}
	if i := strings.IndexByte(noun, ' '); i > 0 {
		return noun[:i] + "s" + noun[i:]
	}
	return noun + "s"
}
