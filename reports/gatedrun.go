package reports

import "github.com/murmur-nexus/murmur-eval/scoring"

// statusJudgedOnly marks, in a run WithoutJudges made, a case that only
// left-out judges scored: neither passed nor failed, so the diff pairs it
// for no scorer.
const statusJudgedOnly = "judged_only"

// WithoutJudges is the run as the gates see it when the llm_judge scorers
// that keep rejects are left out: their score rows dropped and each case's
// status murmur's rule over the scores that remain. A failed case that only
// they failed passes; a case they alone scored counts as neither (its
// status is statusJudgedOnly). Other cases, and r, are unchanged.
func (r *RunData) WithoutJudges(keep func(scorer string) bool) *RunData {
	type attemptKey struct {
		CaseKey
		attempt int32
	}
	type tally struct{ kept, keptFailed, leftOut, leftFailed int }
	byAttempt := map[attemptKey]*tally{}
	out := &RunData{Path: r.Path}
	if r.Scores != nil {
		out.Scores = make([]ScoreRow, 0, len(r.Scores))
	}
	for _, s := range r.Scores {
		k := attemptKey{s.Key(), max(s.Attempt, 1)}
		t := byAttempt[k]
		if t == nil {
			t = &tally{}
			byAttempt[k] = t
		}
		if s.ScorerType == scoring.TypeLLMJudge && !keep(s.Scorer) {
			t.leftOut++
			if !s.Passed() {
				t.leftFailed++
			}
			continue
		}
		t.kept++
		if !s.Passed() {
			t.keptFailed++
		}
		out.Scores = append(out.Scores, s)
	}
	if r.Results == nil {
		return out
	}
	out.Results = make([]ResultRow, len(r.Results))
	copy(out.Results, r.Results)
	for i := range out.Results {
		row := &out.Results[i]
		t := byAttempt[attemptKey{row.Key(), max(row.Attempt, 1)}]
		if t == nil || t.leftOut == 0 {
			continue
		}
		switch {
		case row.Status != StatusPassed && row.Status != StatusFailed:
		case t.kept == 0:
			row.Status = statusJudgedOnly
		case row.Status == StatusFailed && t.keptFailed == 0 && t.leftFailed > 0:
			row.Status = StatusPassed
		}
	}
	return out
}

// Judges calibrates the run's llm_judge scorers against labels (nil for
// none) at minKappa: the judges list its summary.json would hold, for a
// command that reads a finished run (diff).
func (r *RunData) Judges(labels *JudgeLabels, minKappa float64) []JudgeDigest {
	var s Summary
	s.SetJudges(labels, minKappa)
	r.feed(&s)
	return s.judges.digests()
}
