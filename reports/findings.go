package reports

import (
	"fmt"
	"slices"
	"strings"
)

// findingsKept is how many diverged cases a summary names (the first by
// case_id and epoch); the rest are counted.
const findingsKept = 10

// DivergedCase is a case whose replayed requests differed from the
// recorded ones: the recordings answered a conversation the capsule no
// longer has (a tool missing, a prompt changed), so its verdict measures
// the recording, not the capsule.
type DivergedCase struct {
	CaseID      string `json:"case_id"`
	Epoch       int32  `json:"epoch"`
	Divergences int32  `json:"divergences"`
	FirstTurn   *int32 `json:"first_turn,omitempty"`
	Status      string `json:"status"`
}

// divergence counts a run's replay divergences.
type divergence struct {
	requests int
	cases    int
	first    []DivergedCase // by case_id then epoch, at most findingsKept
}

func (v *divergence) add(r ResultRow) {
	if r.ReplayDivergences <= 0 {
		return
	}
	v.requests += int(r.ReplayDivergences)
	v.cases++
	d := DivergedCase{CaseID: r.CaseID, Epoch: r.Epoch, Divergences: r.ReplayDivergences, FirstTurn: r.ReplayFirstDivergentTurn, Status: r.Status}
	i, _ := slices.BinarySearchFunc(v.first, d, func(a, b DivergedCase) int {
		if a.CaseID != b.CaseID {
			if a.CaseID < b.CaseID {
				return -1
			}
			return 1
		}
		return int(a.Epoch - b.Epoch)
	})
	if i >= findingsKept {
		return
	}
	v.first = slices.Insert(v.first, i, d)
	v.first = v.first[:min(len(v.first), findingsKept)]
}

// DivergenceLine is divergenceLine, for the HTML report's findings.
func (d *Digest) DivergenceLine() string { return d.divergenceLine() }

// CompletenessLine is completenessLine, for the HTML report's findings.
func (d *Digest) CompletenessLine() string { return d.completenessLine() }

// divergenceLine reads "replay diverged: 3 requests in 2 cases differed
// from the recordings (first: calc-1 at turn 1, ...)"; "" when none did.
func (d *Digest) divergenceLine() string {
	if d.ReplayDivergences == 0 {
		return ""
	}
	s := fmt.Sprintf("replay diverged: %s in %s differed from the recordings", plural(d.ReplayDivergences, "request"), plural(d.DivergedCases, "case"))
	for i, c := range d.Diverged[:min(len(d.Diverged), 3)] {
		sep := ", "
		if i == 0 {
			sep = " (first: "
		}
		s += sep + d.name(CaseDigest{CaseID: c.CaseID, Epoch: c.Epoch})
		if c.FirstTurn != nil {
			s += fmt.Sprintf(" at turn %d", *c.FirstTurn)
		}
	}
	if len(d.Diverged) > 0 {
		if d.DivergedCases > 3 {
			s += fmt.Sprintf(", and %d more", d.DivergedCases-3)
		}
		s += ")"
	}
	return s
}

// completenessLine says what part of its plan a run ran: "" for a
// complete run; "interrupted: 4 of 12 planned cases ran" otherwise.
func (d *Digest) completenessLine() string {
	if d.Complete {
		return ""
	}
	why := "incomplete"
	switch d.Stopped {
	case StoppedInterrupted:
		why = "interrupted"
	case StoppedEndpoint:
		why = "stopped (model endpoint unreachable)"
	case StoppedBudget:
		why = "stopped (--max-cost reached)"
	case StoppedShardsMissing:
		why = "incomplete (shards missing)"
	case StoppedKilled:
		if d.Planned <= 0 { // its dataset is gone or changed
			return fmt.Sprintf("killed before it wrote its summary: %d %s finished", d.Ran, pluralWord(d.Ran, "case"))
		}
		return fmt.Sprintf("killed before it wrote its summary: %d of %d planned %s finished", d.Ran, d.Planned, pluralWord(d.Planned, "case"))
	case StoppedRunning:
		if d.Planned <= 0 {
			return fmt.Sprintf("still running: %d %s finished so far", d.Ran, pluralWord(d.Ran, "case"))
		}
		return fmt.Sprintf("still running: %d of %d planned %s finished so far", d.Ran, d.Planned, pluralWord(d.Planned, "case"))
	}
	return fmt.Sprintf("%s: %d of %d planned %s ran", why, d.Ran, d.Planned, pluralWord(d.Planned, "case"))
}

// Why a run did not run its whole plan (Digest.Stopped).
const (
	StoppedInterrupted   = "interrupted"          // SIGINT or SIGTERM
	StoppedEndpoint      = "endpoint_unreachable" // the model endpoint could not be reached (E-EVL-018)
	StoppedBudget        = "budget"               // --max-cost was spent: no more cases started, the running ones finished
	StoppedShardsMissing = "shards_missing"       // merge --allow-missing of shards that do not cover the run
	StoppedFailed        = "failed"               // murmur-eval could not write its outputs
	StoppedKilled        = "killed"               // show: a run folder with a journal and no summary
	StoppedRunning       = "running"              // show: the same, its run still going (it holds the folder's lock)
)

func pluralWord(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// MissingTool is a tool the model called that the capsule does not
// provide: a dropped artifact (a typo in murmur.yaml) or a model that
// invents tools. Each such call failed inside the session.
type MissingTool struct {
	Tool  string `json:"tool"`
	Calls int    `json:"calls"`
	Cases int    `json:"cases"`
}

// AddMissingToolCalls counts, for one case, its calls to tools the capsule
// does not provide (tool name -> calls).
func (s *Summary) AddMissingToolCalls(calls map[string]int) {
	for tool, n := range calls {
		if s.missingTools == nil {
			s.missingTools = map[string]*MissingTool{}
		}
		m := s.missingTools[tool]
		if m == nil {
			m = &MissingTool{Tool: tool}
			s.missingTools[tool] = m
		}
		m.Calls += n
		m.Cases++
	}
}

func (s *Summary) missingToolList() []MissingTool {
	out := make([]MissingTool, 0, len(s.missingTools))
	for _, m := range s.missingTools {
		out = append(out, *m)
	}
	slices.SortFunc(out, func(a, b MissingTool) int {
		if a.Calls != b.Calls {
			return b.Calls - a.Calls
		}
		if a.Tool < b.Tool {
			return -1
		}
		return 1
	})
	return out
}

// ranDespiteLine reads `ran despite E-EVL-081 (--run-anyway): what would
// have refused the run was let through; its verdicts may not measure the
// model`, or "" when nothing was.
func (d *Digest) ranDespiteLine() string {
	if len(d.RanDespite) == 0 {
		return ""
	}
	return fmt.Sprintf("ran despite %s (--run-anyway): what would have refused the run was let through; its verdicts may not measure the model",
		strings.Join(slices.Compact(slices.Clone(d.RanDespite)), ", "))
}

// missingToolLines read `tool not provided: the model called "calc" 3
// times in 2 cases; the capsule does not provide it`.
func (d *Digest) missingToolLines() []string {
	var out []string
	for _, m := range d.MissingTools {
		out = append(out, fmt.Sprintf("tool not provided: the model called %q %s in %s; the capsule does not provide it (check artifacts in murmur.yaml)",
			m.Tool, plural(m.Calls, "time"), plural(m.Cases, "case")))
	}
	return out
}
