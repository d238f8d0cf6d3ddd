package datasets

import (
	"fmt"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// CheckPicked refuses a run that would run nothing: an empty dataset,
// or a --filter or --limit that selects none of its cases (E-EVL-003, exit
// 2). A run of no case would pass every gate, which is how a typo in
// --filter turns a CI job green. One shard of a small dataset may be empty
// by construction (8 shards of 3 cases): that is warned about, not
// refused, for merge checks that every (case, epoch) of the run was run.
// The warning, when not empty, is of a shard that holds no case.
func (sel Selection) CheckPicked(ds *Dataset, selected Picked) (warning string, err error) {
	if selected.Len() > 0 {
		return "", nil
	}
	if ds.Len() == 0 {
		return "", errcode.New(errcode.EmptySelection, "%s holds no case", ds.Path).
			WithHint("a dataset has one JSON object per line: {\"case_id\": \"...\", \"task\": \"...\"}")
	}
	unsharded := sel
	unsharded.Shard = Shard{}
	if n := unsharded.Apply(ds).Len(); sel.Shard.Count > 1 && n > 0 {
		return fmt.Sprintf("shard %d/%d of %s holds no case (%s selected in all); merge will check that the other shards ran them",
			sel.Shard.Index, sel.Shard.Count, ds.Path, plural(n, "case")), nil
	}
	what := "--filter " + fmt.Sprintf("%q", sel.Filter)
	switch {
	case sel.Filter == "" && sel.Limit > 0:
		what = fmt.Sprintf("--limit %d", sel.Limit)
	case sel.Filter == "":
		what = "the selection"
	}
	return "", errcode.New(errcode.EmptySelection, "%s matched none of the %s in %s", what, plural(ds.Len(), "case"), ds.Path).
		WithHint("check the glob against the case_id values (murmur-eval matches the whole case_id, e.g. 'calc-*'); a run of no case would pass every gate")
}

// plural is n and noun, the noun plural unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
