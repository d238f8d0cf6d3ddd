package runfolder

import (
	"iter"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/pipeline"
)

// PlanJobs yields the (case, epoch, variant) triples to run, epoch by
// epoch so a run cut short has whole epochs first, and a case's variants
// one after the other so a run cut short has them in pairs, leaving out
// those already done, and says how many it will yield. variants are the
// run's variant names (variant.Set.Names: one "" for a run without). A
// job is made when the runner asks for it (no list of them held all run);
// its Input is the case's index in ds, which CaseInput reads.
func PlanJobs(ds *datasets.Dataset, selected datasets.Picked, epochs int, variants []string, done map[journal.Key]bool) (int, iter.Seq[pipeline.Job]) {
	isDone := func(i, e int, v string) bool {
		return len(done) > 0 && done[journal.Key{CaseID: ds.ID(i), Epoch: e, Variant: v}]
	}
	n := selected.Len() * epochs * len(variants)
	if len(done) > 0 {
		for e := 1; e <= epochs; e++ {
			for i := range selected.All() {
				for _, v := range variants {
					if isDone(i, e, v) {
						n--
					}
				}
			}
		}
	}
	return n, func(yield func(pipeline.Job) bool) {
		for e := 1; e <= epochs; e++ {
			for i := range selected.All() {
				for _, v := range variants {
					if !isDone(i, e, v) && !yield(pipeline.Job{ID: ds.ID(i), Input: int32(i), Epoch: e, Variant: v}) {
						return
					}
				}
			}
		}
	}
}

// CaseInput is a job's input for its stages: its dataset line read again
// and parsed, or why it could not be (pipeline.InputOf hands that error to
// the first stage that reads the line, and the case's row records it).
func CaseInput(ds *datasets.Dataset, j pipeline.Job) any {
	i, ok := j.Input.(int32)
	if !ok {
		return j.Input
	}
	c, err := ds.Case(int(i))
	if err != nil {
		return err
	}
	return c
}

// Bounds is what the run's journal may name (journal.Bounds): the
// selected cases, epochs 1..epochs, attempts 1..retries+1. All three are
// in the run's fingerprint, so a resume has the run's own. The set of the
// selection's ids is built on the first question: a new run's journal is
// empty and asks none.
func Bounds(ds *datasets.Dataset, selected datasets.Picked, epochs, retries int) journal.Bounds {
	var ids map[string]struct{}
	return journal.Bounds{
		HasCase: func(id string) bool {
			if ids == nil {
				ids = make(map[string]struct{}, selected.Len())
				for i := range selected.All() {
					ids[ds.ID(i)] = struct{}{}
				}
			}
			_, ok := ids[id]
			return ok
		},
		Epochs:   epochs,
		Attempts: retries + 1,
	}
}
