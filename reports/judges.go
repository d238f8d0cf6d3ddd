package reports

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/scoring"
)

// DefaultJudgeMinKappa is --judge-min-kappa's default: the kappa from which
// a judge scorer counts toward the gates (RATIONALE.md, "Why a judge
// counts toward the gates only from kappa 0.6").
const DefaultJudgeMinKappa = 0.6

// unmatchedKept is how many labels naming what the run does not have the
// summary lists; the rest are counted.
const unmatchedKept = 20

// maxJudgeModels bounds the models one judge scorer's entry names.
const maxJudgeModels = 8

// JudgeDigest is one llm_judge scorer of a run as summary.json's judges
// list shows it: its model, the cases it scored, how it agrees with
// people's labels (nil without any label for a case it scored) and
// whether it counts toward the gates.
type JudgeDigest struct {
	Scorer      string       `json:"scorer"`
	Model       string       `json:"model"` // the judge model; several are joined by ", "
	Cases       int          `json:"cases"` // the cases (epochs) it scored
	Calibration *Calibration `json:"calibration"`
	// Calibrated is true when Calibration's kappa is at least MinKappa:
	// only then does the scorer count toward --fail-under and
	// --baseline. Uncalibrated says why it does not.
	Calibrated   bool    `json:"calibrated"`
	MinKappa     float64 `json:"min_kappa"`
	Uncalibrated string  `json:"uncalibrated,omitempty"`
	// Samples is the most samples a case was judged with
	// (--judge-samples); Split counts the cases whose samples disagreed on
	// the verdict (judge_split), and MaxSpread is the largest spread of a
	// case's sample scores.
	Samples   int     `json:"samples"`
	Split     int     `json:"split"`
	MaxSpread float64 `json:"max_spread"`
}

// JudgeLabelsDigest is what a run made of its --judge-labels file: its
// labels, those counted (a judge scored their case) and those naming a
// case, an epoch or a scorer the run does not have (the first
// unmatchedKept, in file order).
type JudgeLabelsDigest struct {
	File           string   `json:"file"`
	Labels         int      `json:"labels"`
	Unmatched      []string `json:"unmatched,omitempty"`
	UnmatchedTotal int      `json:"unmatched_total"`
}

// GatedVerdicts are the verdicts the gates see when judge scorers are left
// out: a case passes when its scores without theirs pass (murmur's rule
// over the rest); a case they alone scored is counted in OnlyJudged and
// not at all in PassRate, so a judge nobody checked neither passes nor
// fails it (RATIONALE.md). Flipped counts the failed cases that pass
// without them.
type GatedVerdicts struct {
	LeftOut    []string `json:"left_out"`
	PassRate   Rate     `json:"pass_rate"`
	OnlyJudged int      `json:"only_judged"`
	Flipped    int      `json:"flipped"`
}

// judgeState is what the summary keeps about the run's judge scorers.
type judgeState struct {
	labels   *JudgeLabels
	minKappa float64
	set      bool                  // SetJudges was called
	stats    map[string]*judgeStat // by scorer
	// labelled holds the case ids the labels name, each true once a row
	// of it was added; ran the (case, epoch) pairs of those that ran.
	labelled map[string]bool
	ran      map[CaseKey]bool
	shapes   map[string]*verdictShape
}

// judgeStat is one judge scorer's counts.
type judgeStat struct {
	models         map[string]bool
	cases          int
	confusion      Confusion
	samples, split int
	maxSpread      float64
}

// verdictShape is a kind of scored case with judge scores, counted: its
// status, whether other scorers scored it and failed it, its judge
// scorers and those that failed it.
type verdictShape struct {
	passed, others, othersFailed bool
	judges, failed               []string
	n                            int
}

// SetJudges gives the summary people's labels (nil for none) and the kappa
// from which a judge scorer counts toward the gates. Call it before the
// first AddCase; without it no judge is calibrated.
func (s *Summary) SetJudges(labels *JudgeLabels, minKappa float64) {
	s.judges.labels, s.judges.minKappa, s.judges.set = labels, minKappa, true
	if labels != nil {
		s.judges.labelled = map[string]bool{}
		for _, l := range labels.Labels {
			s.judges.labelled[l.CaseID] = false
		}
	}
}

// add counts a case's judge scores: their models, their agreement
// with the labels, and the case's shape for the gated verdicts.
func (j *judgeState) add(r ResultRow, scores []ScoreRow) {
	if _, ok := j.labelled[r.CaseID]; ok {
		j.labelled[r.CaseID] = true
		if j.ran == nil {
			j.ran = map[CaseKey]bool{}
		}
		j.ran[CaseKey{CaseID: r.CaseID, Epoch: r.Epoch}] = true // a label names no variant
	}
	var shape verdictShape
	for _, sc := range scores {
		if sc.ScorerType != scoring.TypeLLMJudge {
			shape.others = true
			shape.othersFailed = shape.othersFailed || !sc.Passed()
			continue
		}
		shape.judges = append(shape.judges, sc.Scorer)
		if !sc.Passed() {
			shape.failed = append(shape.failed, sc.Scorer)
		}
		j.count(sc)
	}
	if len(shape.judges) == 0 || (r.Status != StatusPassed && r.Status != StatusFailed) {
		return
	}
	shape.passed = r.Status == StatusPassed
	key := fmt.Sprintf("%t %t %t %q %q", shape.passed, shape.others, shape.othersFailed, shape.judges, shape.failed)
	if j.shapes == nil {
		j.shapes = map[string]*verdictShape{}
	}
	if sh := j.shapes[key]; sh != nil {
		sh.n++
		return
	}
	shape.n = 1
	j.shapes[key] = &shape
}

// count adds one judge score to its scorer's counts.
func (j *judgeState) count(sc ScoreRow) {
	if j.stats == nil {
		j.stats = map[string]*judgeStat{}
	}
	st := j.stats[sc.Scorer]
	if st == nil {
		st = &judgeStat{models: map[string]bool{}}
		j.stats[sc.Scorer] = st
	}
	st.cases++
	if sc.JudgeSamples != nil {
		st.samples = max(st.samples, int(*sc.JudgeSamples))
	}
	if sc.JudgeSplit != nil && *sc.JudgeSplit {
		st.split++
	}
	if sc.JudgeSpread != nil {
		st.maxSpread = max(st.maxSpread, *sc.JudgeSpread)
	}
	if sc.JudgeModel != nil && *sc.JudgeModel != "" && len(st.models) < maxJudgeModels {
		st.models[*sc.JudgeModel] = true
	}
	if pass, ok := j.labels.Lookup(sc.CaseID, sc.Scorer, sc.Epoch); ok {
		st.confusion.Add(sc.Passed(), pass)
	}
}

// digests are the judges list, by scorer name.
func (j *judgeState) digests() []JudgeDigest {
	minKappa := DefaultJudgeMinKappa
	if j.set {
		minKappa = j.minKappa
	}
	var out []JudgeDigest
	for _, name := range slices.Sorted(maps.Keys(j.stats)) {
		st := j.stats[name]
		d := JudgeDigest{Scorer: name, Model: strings.Join(slices.Sorted(maps.Keys(st.models)), ", "), Cases: st.cases,
			Calibration: st.confusion.Calibration(), MinKappa: minKappa, Samples: st.samples, Split: st.split, MaxSpread: st.maxSpread}
		c := d.Calibration
		switch {
		case j.labels == nil:
			d.Uncalibrated = "no labels (--judge-labels)"
		case c == nil:
			d.Uncalibrated = "no label for a case it scored"
		case c.Kappa == nil:
			d.Uncalibrated = fmt.Sprintf("kappa undefined: judge and people gave all %s the same verdict", plural(c.N, "labelled case"))
		case *c.Kappa < minKappa:
			d.Uncalibrated = kappaBelow(*c.Kappa, minKappa)
		default:
			d.Calibrated = true
		}
		out = append(out, d)
	}
	return out
}

// gated computes the verdicts without the uncalibrated judges of judges;
// nil when every judge scorer is calibrated. passed and failed are the
// run's counts of cases in status passed and failed.
func (j *judgeState) gated(judges []JudgeDigest, passed, failed int) *GatedVerdicts {
	leftOut := map[string]bool{}
	g := &GatedVerdicts{LeftOut: []string{}}
	for _, d := range judges {
		if !d.Calibrated {
			leftOut[d.Scorer] = true
			g.LeftOut = append(g.LeftOut, d.Scorer)
		}
	}
	if len(leftOut) == 0 {
		return nil
	}
	for _, sh := range j.shapes {
		kept := slices.ContainsFunc(sh.judges, func(n string) bool { return !leftOut[n] })
		switch {
		case !sh.others && !kept: // scored by left-out judges alone
			g.OnlyJudged += sh.n
			if sh.passed {
				passed -= sh.n
			} else {
				failed -= sh.n
			}
		case !sh.passed && !sh.othersFailed && len(sh.failed) > 0 &&
			!slices.ContainsFunc(sh.failed, func(n string) bool { return !leftOut[n] }):
			g.Flipped += sh.n
			passed += sh.n
			failed -= sh.n
		}
	}
	g.PassRate = NewRate(passed, passed+failed)
	return g
}

// labelsDigest says what came of the labels; nil without a labels file.
// A label naming a case, an epoch or a scorer the run does not have is
// listed (it would otherwise be silently ignored).
func (j *judgeState) labelsDigest(scorers map[string]*scorerStat) *JudgeLabelsDigest {
	if j.labels == nil {
		return nil
	}
	d := &JudgeLabelsDigest{File: j.labels.Name, Labels: len(j.labels.Labels)}
	for _, l := range j.labels.Labels {
		var why string
		st := scorers[l.Scorer]
		switch {
		case !j.labelled[l.CaseID]:
			why = fmt.Sprintf("case %q is not in the run", l.CaseID)
		case l.Epoch > 0 && !j.ran[CaseKey{CaseID: l.CaseID, Epoch: l.Epoch}]:
			why = fmt.Sprintf("case %q has no epoch %d in the run", l.CaseID, l.Epoch)
		case st == nil:
			why = fmt.Sprintf("scorer %q is not in the run", l.Scorer)
		case st.typ != scoring.TypeLLMJudge:
			why = fmt.Sprintf("scorer %q is of type %s, not llm_judge", l.Scorer, st.typ)
		default:
			continue
		}
		d.UnmatchedTotal++
		if len(d.Unmatched) < unmatchedKept {
			d.Unmatched = append(d.Unmatched, fmt.Sprintf("%s:%d: %s", j.labels.Name, l.Line, why))
		}
	}
	return d
}

// formatKappa writes a kappa as "0.41", with two decimals.
func formatKappa(k float64) string { return strconv.FormatFloat(k, 'f', 2, 64) }

// kappaBelow reads "kappa 0.41 < 0.6", with as many decimals as tell the
// kappa from the threshold ("kappa 0.5999 < 0.6", never "0.60 < 0.6").
func kappaBelow(k, minKappa float64) string {
	s := formatKappa(k)
	for prec := 3; prec <= 6; prec++ {
		if v, _ := strconv.ParseFloat(s, 64); v < minKappa {
			break
		}
		s = strconv.FormatFloat(k, 'f', prec, 64)
	}
	return "kappa " + s + " < " + strconv.FormatFloat(minKappa, 'f', -1, 64)
}
