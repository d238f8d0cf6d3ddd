package reports

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/murmur-nexus/murmur-eval/trace"
)

// slowestShown is how many of the slowest cases the summary lists.
const slowestShown = 3

// failedKept is how many failed cases a summary keeps (the first by case_id
// and epoch); the rest are counted.
const failedKept = 50

// statusOrder returns the order of statuses in the headline; any other
// status follows, sorted.
func statusOrder() []string {
	return []string{StatusPassed, StatusFailed, StatusError, StatusTimeout, StatusOverBudget, StatusCancelled, StatusSkipped}
}

// Summary aggregates a run's rows into what the end-of-run reports show:
// counts per status, pass rates over both denominators, pass rates per
// scorer, error codes, the slowest and the failed cases. The zero value is
// ready to use. Digest turns it into summary.json's content; WriteText,
// WriteMarkdown and the JUnit writer render it.
//
// Summary is not safe for concurrent use: feed it from one goroutine, such as
// the collector that also sends the rows to the sinks. Everything it reports
// is independent of the order rows arrive in.
type Summary struct {
	runID          string
	capsuleName    string
	capsuleVersion string
	cases          int
	byStatus       map[string]int
	turns          int64
	toolCalls      int64
	inputTokens    int64
	outputTokens   int64
	multiEpoch     bool
	passAt         []int                 // the k values of pass@k (SetPassAt)
	epochs         int                   // the run's epochs per case (SetEpochs); 0: unknown
	perCase        map[passKey]passCount // verdicts per case (and variant) across epochs
	slowest        []caseRef             // longest first, at most slowestShown
	errors         map[string]*errorStat
	scorers        map[string]*scorerStat
	failed         []caseRef // by case_id then epoch, at most failedKept
	failedTotal    int
	firstStart     time.Time
	lastEnd        time.Time
	divergence     divergence
	cache          cacheCount
	cost           costCount
	missingTools   map[string]*MissingTool
	murmur         murmurCounts
	judges         judgeState   // the llm_judge scorers (judges.go)
	variants       variantTally // by variant (variants.go); empty without
}

// caseRef names one case of a run and what the summary shows of it.
type caseRef struct {
	caseID   string
	epoch    int32
	status   string
	duration float64 // ms
	stage    string
	message  string
	reasons  []string // "scorer: reason" of each failed scorer
}

// errorStat counts the rows with one error code and keeps the first of them,
// by case_id then epoch.
type errorStat struct {
	count int
	first caseRef
}

// scorerStat counts one scorer's verdicts.
type scorerStat struct {
	typ    string
	passed int
	total  int
}

// before orders case references by case_id, then epoch.
func (c caseRef) before(d caseRef) bool {
	return cmp.Or(strings.Compare(c.caseID, d.caseID), cmp.Compare(c.epoch, d.epoch)) < 0
}

// Add counts one result row of a case without scores.
func (s *Summary) Add(r ResultRow) { s.AddCase(r, nil) }

// AddCase counts one case: its results row and its score rows.
func (s *Summary) AddCase(r ResultRow, scores []ScoreRow) {
	if s.byStatus == nil {
		s.byStatus = make(map[string]int)
		s.errors = make(map[string]*errorStat)
		s.scorers = make(map[string]*scorerStat)
		s.murmur = make(murmurCounts)
	}
	if s.cases == 0 || r.RunID < s.runID {
		s.runID, s.capsuleName, s.capsuleVersion = r.RunID, r.CapsuleName, r.CapsuleVersion
	}
	s.cases++
	s.byStatus[r.Status]++
	s.turns += int64(r.Turns)
	s.toolCalls += int64(r.ToolCalls)
	s.inputTokens = trace.AddTokens(s.inputTokens, r.InputTokens)
	s.outputTokens = trace.AddTokens(s.outputTokens, r.OutputTokens)
	s.multiEpoch = s.multiEpoch || r.Epoch > 1
	s.countPass(r)
	s.divergence.add(r)
	s.cache.add(r)
	s.cost.add(r, scores)
	s.variants.add(r)

	ref := caseRef{caseID: r.CaseID, epoch: r.Epoch, status: r.Status, duration: r.DurationMS,
		stage: deref(r.ErrorStage), message: deref(r.ErrorMessage)}
	if r.Status != StatusSkipped {
		s.addSlow(ref)
		s.addSpan(r)
	}
	s.murmur.add(r, ref)
	if r.ErrorCode != nil {
		e := s.errors[*r.ErrorCode]
		if e == nil {
			e = &errorStat{first: ref}
			s.errors[*r.ErrorCode] = e
		} else if ref.before(e.first) {
			e.first = ref
		}
		e.count++
	}
	s.judges.add(r, scores)
	for _, sc := range scores {
		st := s.scorers[sc.Scorer]
		if st == nil {
			st = &scorerStat{typ: sc.ScorerType}
			s.scorers[sc.Scorer] = st
		}
		st.total++
		if sc.Passed() {
			st.passed++
		} else {
			ref.reasons = append(ref.reasons, sc.Scorer+": "+sc.Reason)
		}
	}
	if r.Status == StatusFailed {
		s.addFailed(ref)
	}
}

func (s *Summary) addSpan(r ResultRow) {
	if r.StartedAt.IsZero() {
		return
	}
	end := r.StartedAt.Add(msDuration(r.DurationMS))
	if s.firstStart.IsZero() || r.StartedAt.Before(s.firstStart) {
		s.firstStart = r.StartedAt
	}
	if end.After(s.lastEnd) {
		s.lastEnd = end
	}
}

// addSlow keeps ref if it is among the slowest cases so far.
func (s *Summary) addSlow(ref caseRef) {
	s.slowest = append(s.slowest, ref)
	slices.SortFunc(s.slowest, func(a, b caseRef) int {
		if c := cmp.Compare(b.duration, a.duration); c != 0 {
			return c
		}
		if a.before(b) {
			return -1
		}
		return 1
	})
	s.slowest = s.slowest[:min(len(s.slowest), slowestShown)]
}

// addFailed keeps ref if it is among the first failedKept failed cases.
func (s *Summary) addFailed(ref caseRef) {
	s.failedTotal++
	i, _ := slices.BinarySearchFunc(s.failed, ref, func(a, b caseRef) int {
		return cmp.Or(strings.Compare(a.caseID, b.caseID), cmp.Compare(a.epoch, b.epoch))
	})
	if i >= failedKept {
		return
	}
	s.failed = slices.Insert(s.failed, i, ref)
	s.failed = s.failed[:min(len(s.failed), failedKept)]
}

// Total returns the number of rows added.
func (s *Summary) Total() int { return s.cases }

// Count returns the number of rows added with the given status.
func (s *Summary) Count(status string) int { return s.byStatus[status] }

// PassRate is the pass rate over the scored cases (passed and failed): the
// model's score, with harness errors and timeouts left out.
func (s *Summary) PassRate() Rate {
	p := s.byStatus[StatusPassed]
	return NewRate(p, p+s.byStatus[StatusFailed])
}

// Ran is the number of cases that were run: every row but skipped ones and
// those an interrupt cancelled (they run again on --resume).
func (s *Summary) Ran() int {
	return s.cases - s.byStatus[StatusSkipped] - s.byStatus[StatusCancelled]
}

// PassRateAll is the pass rate over every case that ran, errors and
// timeouts included: the second denominator.
func (s *Summary) PassRateAll() Rate { return NewRate(s.byStatus[StatusPassed], s.Ran()) }

// Unscored is the number of cases that ran but got no verdict because of
// the harness, the clock or a per-case budget: status error, timeout or
// over_budget.
func (s *Summary) Unscored() int {
	return s.byStatus[StatusError] + s.byStatus[StatusTimeout] + s.byStatus[StatusOverBudget]
}

// ErrorRate is Unscored over the cases that ran; 0 when none ran.
func (s *Summary) ErrorRate() float64 {
	if s.Ran() == 0 {
		return 0
	}
	return float64(s.Unscored()) / float64(s.Ran())
}

// errorCodes returns the error codes seen, most frequent first.
func (s *Summary) errorCodes() []string {
	codes := make([]string, 0, len(s.errors))
	for code := range s.errors {
		codes = append(codes, code)
	}
	slices.SortFunc(codes, func(a, b string) int {
		return cmp.Or(cmp.Compare(s.errors[b].count, s.errors[a].count), strings.Compare(a, b))
	})
	return codes
}
