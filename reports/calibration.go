package reports

// Confusion counts a judge's verdicts against people's labels, people's
// verdict taken as the truth.
type Confusion struct {
	BothPass  int `json:"both_pass"`  // people pass, judge pass: true positives
	JudgePass int `json:"judge_pass"` // people fail, judge pass: false positives
	JudgeFail int `json:"judge_fail"` // people pass, judge fail: false negatives
	BothFail  int `json:"both_fail"`  // people fail, judge fail: true negatives
}

// Add counts one labelled case the judge scored.
func (c *Confusion) Add(judgePass, peoplePass bool) {
	switch {
	case judgePass && peoplePass:
		c.BothPass++
	case judgePass:
		c.JudgePass++
	case peoplePass:
		c.JudgeFail++
	default:
		c.BothFail++
	}
}

// N is the labelled cases counted.
func (c Confusion) N() int { return c.BothPass + c.JudgePass + c.JudgeFail + c.BothFail }

// Calibration is how well a judge agrees with people on the cases both
// judged. A statistic that is undefined for the counts is null in JSON:
// Kappa when both sides gave one and the same verdict to every case
// (chance agreement is then 1 and kappa 0/0), TPR without a case people
// passed, TNR without one they failed.
type Calibration struct {
	N         int       `json:"n"`
	Agreement float64   `json:"agreement"` // share of the N cases where judge and people agree
	Kappa     *float64  `json:"kappa"`     // Cohen's kappa
	TPR       *float64  `json:"tpr"`       // judge pass among people's pass
	TNR       *float64  `json:"tnr"`       // judge fail among people's fail
	Matrix    Confusion `json:"matrix"`
}

// Calibration computes the statistics of the counts; nil when no labelled
// case was counted (N = 0), where none of them means anything.
func (c Confusion) Calibration() *Calibration {
	n := c.N()
	if n == 0 {
		return nil
	}
	cal := &Calibration{N: n, Matrix: c, Agreement: float64(c.BothPass+c.BothFail) / float64(n),
		Kappa: c.kappa(), TPR: ratio(c.BothPass, c.BothPass+c.JudgeFail), TNR: ratio(c.BothFail, c.BothFail+c.JudgePass)}
	return cal
}

// kappa is Cohen's kappa, (p_o - p_e) / (1 - p_e), with p_o the observed
// agreement and p_e the agreement expected by chance from each side's own
// pass rate. Multiplied through by n² it is a ratio of integers, divided
// once, so a kappa of exactly 0.6 compares equal to --judge-min-kappa 0.6.
// nil when p_e = 1, which happens exactly when judge and people gave every
// case the same one verdict.
func (c Confusion) kappa() *float64 {
	n := int64(c.N())
	judgePass, peoplePass := int64(c.BothPass+c.JudgePass), int64(c.BothPass+c.JudgeFail)
	chance := judgePass*peoplePass + (n-judgePass)*(n-peoplePass) // n² p_e
	agree := n * int64(c.BothPass+c.BothFail)                     // n² p_o
	if chance == n*n {
		return nil
	}
	k := float64(agree-chance) / float64(n*n-chance)
	return &k
}

// ratio is k/n, nil when n is 0.
func ratio(k, n int) *float64 {
	if n == 0 {
		return nil
	}
	r := float64(k) / float64(n)
	return &r
}
