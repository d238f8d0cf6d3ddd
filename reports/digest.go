package reports

import (
	"slices"
	"time"
)

// Digest is a run's summary as summary.json holds it and the Markdown and
// terminal reports show it. Its JSON field names are a contract for CI
// scripts (docs/output-columns.md): fields are added, never renamed.
type Digest struct {
	RunID string `json:"run_id"`
	// Version is the murmur-eval that wrote the summary (set by the
	// commands; "" when read back from Parquet files alone).
	Version string        `json:"version,omitempty"`
	Capsule CapsuleDigest `json:"capsule"`
	Cases   int           `json:"cases"`
	// Complete is false when the run did not run every (case, epoch) pair
	// its selection and --epochs planned: Planned counts them, Ran the
	// pairs that have a row, Stopped says why (Stopped* constants).
	// Resumed is how many of the rows came from the journal of an earlier
	// invocation (--resume); the counts always cover the whole run.
	Complete bool   `json:"complete"`
	Planned  int    `json:"planned"`
	Ran      int    `json:"ran"`
	Stopped  string `json:"stopped,omitempty"`
	Resumed  int    `json:"resumed,omitempty"`
	// ReplayDivergences counts the replayed requests that differed from
	// the recorded ones, in DivergedCases cases (the first of them in
	// Diverged): a finding, gated by --max-divergence.
	ReplayDivergences int            `json:"replay_divergences"`
	DivergedCases     int            `json:"diverged_cases"`
	Diverged          []DivergedCase `json:"diverged,omitempty"`
	// MissingTools are the tools the model called that the capsule does
	// not provide, most called first.
	MissingTools []MissingTool `json:"missing_tools,omitempty"`
	// Statuses counts the cases of every status, zeros included.
	Statuses map[string]int `json:"statuses"`
	// PassRate is over the scored cases (passed + failed): the model's
	// score. PassRateAll is over every case that ran: errors, timeouts and
	// cancelled cases count as not passed.
	PassRate    Rate `json:"pass_rate"`
	PassRateAll Rate `json:"pass_rate_all"`
	// Unscored is the cases in status error, timeout or over_budget; ErrorRate is their
	// share of the cases that ran (what --max-error-rate checks).
	Unscored  int            `json:"unscored"`
	ErrorRate float64        `json:"error_rate"`
	Scorers   []ScorerDigest `json:"scorers"`
	Totals    TotalsDigest   `json:"totals"`
	WallMS    float64        `json:"wall_ms"`
	Slowest   []CaseDigest   `json:"slowest"`
	Failed    []CaseDigest   `json:"failed"` // the first 50 by case_id and epoch
	FailedAll int            `json:"failed_total"`
	Errors    []ErrorDigest  `json:"errors"`
	// MultiEpoch is set when a case ran more than once: reports then name
	// cases with their epoch.
	MultiEpoch bool `json:"multi_epoch"`
	// PassAtK holds the unbiased pass@k for each k of --pass-at;
	// CasePasses every case's passes across epochs (multi-epoch runs).
	PassAtK    []PassAtK    `json:"pass_at_k"`
	CasePasses []CasePasses `json:"case_passes,omitempty"`
	// TraceID is the OpenTelemetry trace of the run ("" without
	// --otel-endpoint); set by the run command.
	TraceID string `json:"trace_id,omitempty"`
	// RanDespite are the codes of what refuses a run by default that
	// --run-anyway let it go on despite (murmur's refusals, a scorer or a
	// check not applied), in the order warned; set by the run command.
	RanDespite []string `json:"ran_despite,omitempty"`
	// ResumeCommand is the shell command line that runs what an
	// interrupted run (or one stopped by a dead endpoint) left, its paths
	// absolute; set by the run command.
	ResumeCommand string `json:"resume_command,omitempty"`
	// MurmurDifferences counts the cases whose verdict differs from the
	// one murmur's own rules would give, by reason.
	MurmurDifferences MurmurDifferences `json:"murmur_differences"`
	// Judges are the run's llm_judge scorers, by name, with their
	// calibration against --judge-labels (JudgeLabels says what came of
	// the file); Gated the verdicts the gates see without the
	// uncalibrated ones, nil when there are none (judges.go).
	Judges      []JudgeDigest      `json:"judges,omitempty"`
	JudgeLabels *JudgeLabelsDigest `json:"judge_labels,omitempty"`
	Gated       *GatedVerdicts     `json:"gated,omitempty"`
	Gates       []GateResult       `json:"gates"`              // set by the run command
	Baseline    *DiffReport        `json:"baseline,omitempty"` // the diff against --baseline
	// Cache is what the model-turn cache did (cache.go); its dir and
	// invocation counts are set by the run command.
	Cache *CacheDigest `json:"cache,omitempty"`
	// Connections are the model endpoints' ranges of requests in flight
	// (connections.go), set by the run command.
	Connections []ConnectionsDigest `json:"connections,omitempty"`
	// CostUSD is what the run cost (costdigest.go); its prices date is
	// set by the run command.
	CostUSD *CostDigest `json:"cost_usd,omitempty"`
	// Variants are a run with variants' (--models, --variants) side by
	// side, and VariantPairs each two of them on the cases both scored
	// (variants.go); left out without variants.
	Variants     []VariantDigest `json:"variants,omitempty"`
	VariantPairs []VariantPair   `json:"variant_pairs,omitempty"`
}

// CapsuleDigest names the capsule under test.
type CapsuleDigest struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// ScorerDigest is one scorer's pass rate over the cases it scored.
type ScorerDigest struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Rate
}

// TotalsDigest sums the cases' counters.
type TotalsDigest struct {
	Turns        int64 `json:"turns"`
	ToolCalls    int64 `json:"tool_calls"`
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// CaseDigest is one case as the reports list it.
type CaseDigest struct {
	CaseID     string   `json:"case_id"`
	Epoch      int32    `json:"epoch"`
	Status     string   `json:"status"`
	DurationMS float64  `json:"duration_ms"`
	Reasons    []string `json:"reasons,omitempty"` // "scorer: reason" of each failed scorer
	Stage      string   `json:"error_stage,omitempty"`
	Message    string   `json:"error_message,omitempty"`
}

// ErrorDigest counts one error code and names its first case.
type ErrorDigest struct {
	Code  string     `json:"code"`
	Count int        `json:"count"`
	First CaseDigest `json:"first"`
}

// GateResult is one gate's decision (docs/exit-codes.md).
type GateResult struct {
	Gate   string `json:"gate"` // fail_under, max_error_rate, max_divergence, baseline
	Passed bool   `json:"passed"`
	Detail string `json:"detail"`
	// Detection is what the baseline gate can find with its paired
	// cases; Warning says, when it cannot fire or cannot enforce
	// --max-drop, so (E-EVL-006). Other gates have neither.
	Detection *Detection `json:"detection,omitempty"`
	Warning   string     `json:"warning,omitempty"`
}

// Digest returns the summary's content; wall is the run's wall-clock time
// (0: the span from the first case's start to the last case's end).
func (s *Summary) Digest(wall time.Duration) Digest {
	if wall == 0 && !s.firstStart.IsZero() {
		wall = s.lastEnd.Sub(s.firstStart)
	}
	d := Digest{
		RunID:             s.runID,
		Capsule:           CapsuleDigest{Name: s.capsuleName, Version: s.capsuleVersion},
		Cases:             s.cases,
		Complete:          true,
		Planned:           s.cases,
		Ran:               s.cases,
		ReplayDivergences: s.divergence.requests,
		DivergedCases:     s.divergence.cases,
		Diverged:          s.divergence.first,
		MissingTools:      s.missingToolList(),
		Statuses:          map[string]int{},
		PassRate:          s.PassRate(),
		PassRateAll:       s.PassRateAll(),
		Unscored:          s.Unscored(),
		ErrorRate:         s.ErrorRate(),
		Scorers:           []ScorerDigest{},
		Totals:            TotalsDigest{s.turns, s.toolCalls, s.inputTokens, s.outputTokens},
		WallMS:            float64(wall.Nanoseconds()) / 1e6,
		Slowest:           []CaseDigest{},
		Failed:            []CaseDigest{},
		FailedAll:         s.failedTotal,
		Errors:            []ErrorDigest{},
		MultiEpoch:        s.multiEpoch,
		PassAtK:           s.passAtK(),
		CasePasses:        s.casePasses(),
		Gates:             []GateResult{},
		MurmurDifferences: s.murmur.digest(),
		Cache:             s.cache.digest(),
		CostUSD:           s.cost.digest(false),
	}
	d.Variants, d.VariantPairs = s.variants.digest()
	for _, st := range statusOrder() {
		d.Statuses[st] = 0
	}
	for st, n := range s.byStatus {
		d.Statuses[st] = n
	}
	names := make([]string, 0, len(s.scorers))
	for n := range s.scorers {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		st := s.scorers[n]
		d.Scorers = append(d.Scorers, ScorerDigest{Name: n, Type: st.typ, Rate: NewRate(st.passed, st.total)})
	}
	d.Judges = s.judges.digests()
	d.JudgeLabels = s.judges.labelsDigest(s.scorers)
	d.Gated = s.judges.gated(d.Judges, s.byStatus[StatusPassed], s.byStatus[StatusFailed])
	for _, c := range s.slowest {
		d.Slowest = append(d.Slowest, c.digest())
	}
	for _, c := range s.failed {
		d.Failed = append(d.Failed, c.digest())
	}
	for _, code := range s.errorCodes() {
		e := s.errors[code]
		d.Errors = append(d.Errors, ErrorDigest{Code: code, Count: e.count, First: e.first.digest()})
	}
	return d
}

func (c caseRef) digest() CaseDigest {
	return CaseDigest{CaseID: c.caseID, Epoch: c.epoch, Status: c.status, DurationMS: c.duration,
		Reasons: c.reasons, Stage: c.stage, Message: c.message}
}
