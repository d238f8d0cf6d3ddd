package main

import (
	"fmt"
	"io"

	"github.com/murmur-nexus/murmur-eval/runfolder"
)

// scoreTally is what came of a run's cases when score scored them again.
type scoreTally struct {
	rescored int // passed or failed cases scored again
	copied   int // of them, those checked or judged in a session copy
	carried  int // cases in error, timeout or cancelled, copied as they were
	// changed are the re-scored cases whose status changed ("case "a"
	// epoch 1: passed -> failed").
	changed []string
	// notKept and errored are the passed or failed cases that are errors
	// now: no session folder; a scorer, a check or a session file that
	// failed.
	notKept, errored []string
	// notInDataset are the re-scored cases the dataset no longer has:
	// scored by the manifest's scorers alone.
	notInDataset []string
}

// tallyShown is how many cases each of the tally's lists names.
const tallyShown = 20

// print writes the tally to w: the counts, then each list of cases.
func (t scoreTally) print(w io.Writer) {
	fmt.Fprintf(w, "murmur-eval score: %s scored again (%d changed status); %s in error, timeout or cancelled copied as they were (no verdict to redo)\n",
		plural(t.rescored, "case"), len(t.changed), plural(t.carried, "case"))
	if t.copied > 0 {
		fmt.Fprintf(w, "murmur-eval score: %s checked or judged again in copies of their session folders under the new run's %s/ (their logs/ are there)\n",
			plural(t.copied, "case"), runfolder.SessionsDir)
	}
	lists := []struct {
		what  string
		cases []string
	}{
		{"changed status", t.changed},
		{"not re-scored, its session folder was not kept (an error, E-EVL-092)", t.notKept},
		{"could not be scored (an error)", t.errored},
		{"no longer in the dataset, scored by the manifest's scorers alone", t.notInDataset},
	}
	for _, l := range lists {
		if len(l.cases) == 0 {
			continue
		}
		fmt.Fprintf(w, "murmur-eval score: %s %s:\n", plural(len(l.cases), "case"), l.what)
		for _, c := range l.cases[:min(len(l.cases), tallyShown)] {
			fmt.Fprintf(w, "  %s\n", c)
		}
		if more := len(l.cases) - tallyShown; more > 0 {
			fmt.Fprintf(w, "  ... and %d more\n", more)
		}
	}
	if len(t.notKept) > 0 {
		fmt.Fprintln(w, "  hint: a run keeps every case's session folder with --keep-sessions all (the default); --keep-sessions failed drops the passed ones")
	}
}

// add adds o's counts and lists to t's.
func (t *scoreTally) add(o scoreTally) {
	t.rescored += o.rescored
	t.copied += o.copied
	t.carried += o.carried
	t.changed = append(t.changed, o.changed...)
	t.notKept = append(t.notKept, o.notKept...)
	t.errored = append(t.errored, o.errored...)
	t.notInDataset = append(t.notInDataset, o.notInDataset...)
}
