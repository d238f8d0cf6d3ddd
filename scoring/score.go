package scoring

// Results of a score, as murmur writes them in eval.jsonl.
const (
	Pass = "pass"
	Fail = "fail"
)

// Overall verdicts of a case, as in murmur's dataset_run record.
const (
	OverallPass     = "pass"
	OverallFail     = "fail"
	OverallNoScores = "no_scores"
)

// Score is one scorer's verdict on one case.
type Score struct {
	Name   string  // the scorer's name: unique within a case
	Type   string  // exit_ok, max_turns, ..., result_contains, file, check
	Pass   bool    // whether the case passed this scorer
	Value  float64 // in [0, 1]: 1 or 0, or the fraction met (tool_sequence, lists)
	Reason string  // why, in murmur's words where murmur has a scorer
	// Implicit marks the exit_ok score a case gets when no scorer applied
	// to it; Expected marks the scores of the dataset line's expected
	// value. murmur scores neither: only the manifest's scorers
	// (CompareWithMurmur).
	Implicit bool
	Expected bool
	// Judge is set for an llm_judge scorer: which model judged and what
	// it cost. murmur scores no llm_judge (CompareWithMurmur).
	Judge *JudgeInfo
}

// JudgeInfo is what an llm_judge score cost and how sure it was: the
// judge model, its tokens and wall time over all the score's calls (its
// samples and any repair), the samples' scores, their spread (largest
// minus smallest) and whether they disagree on the verdict.
type JudgeInfo struct {
	Model                     string
	InputTokens, OutputTokens int64
	LatencyMS                 float64
	Samples                   int
	Values                    []float64
	Spread                    float64
	// Split: the samples disagree on the verdict (some reach the
	// threshold, some do not).
	Split bool
}

// Result returns "pass" or "fail".
func (s Score) Result() string {
	if s.Pass {
		return Pass
	}
	return Fail
}

// Overall is murmur's rule: fail if any scorer failed, no_scores if none
// scored, pass otherwise.
func Overall(scores []Score) string {
	if len(scores) == 0 {
		return OverallNoScores
	}
	for _, s := range scores {
		if !s.Pass {
			return OverallFail
		}
	}
	return OverallPass
}

// fraction returns n/d, or 1 when d is 0 (nothing was asked for).
func fraction(n, d int) float64 {
	if d == 0 {
		return 1
	}
	return float64(n) / float64(d)
}

// passFail is a 0/1 score.
func passFail(name, typ string, pass bool, reason string) Score {
	v := 0.0
	if pass {
		v = 1
	}
	return Score{Name: name, Type: typ, Pass: pass, Value: v, Reason: reason}
}
