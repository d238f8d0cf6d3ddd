package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
	"github.com/murmur-nexus/murmur-eval/scoring"
)

// Options are the run's judge settings.
type Options struct {
	// Source answers the judge's requests: the run's live client, or a
	// recording or replaying source over a folder of its own.
	Source inference.Source
	// Model is the judge's inference block: its API (DriverArtifact
	// murmur-driver-openai or murmur-driver-anthropic), endpoint, model
	// and key.
	Model inference.Config
	// Samples is how many times each case is judged per scorer; the score
	// is their mean. 0 means 1.
	Samples int
}

// Judge is the run's scoring.Judge. It is safe for concurrent use.
type Judge struct{ o Options }

// New returns the run's judge.
func New(o Options) *Judge {
	o.Samples = max(o.Samples, 1)
	return &Judge{o: o}
}

// LogFile is where a session keeps its judge exchanges.
const LogFile = "logs/judge.jsonl"

// ForCase binds the judge to one case: its provider (one per case, so a
// recording keys the case's judge calls by their order) and what it sees.
func (j *Judge) ForCase(ctx context.Context, in scoring.Input) (scoring.CaseJudge, error) {
	p, err := j.o.Source.ForCase(ctx, inference.Case{ID: in.CaseID, Variant: in.Variant, Workdir: in.SessionDir, Inference: j.o.Model})
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, errcode.New(errcode.ProviderDriver, "the judge model has no provider (transport %q)", j.o.Model.Transport)
	}
	obs := in.Observer
	if obs == nil {
		obs = inference.NopObserver{}
	}
	return &caseJudge{j: j, p: p, in: in, obs: obs}, nil
}

type caseJudge struct {
	j   *Judge
	p   inference.Provider
	in  scoring.Input
	obs inference.Observer
}

// Judge asks the judge Samples times and scores the mean against the
// threshold.
func (c *caseJudge) Judge(ctx context.Context, spec scoring.ScorerSpec) (scoring.Score, error) {
	req := request(c.j.o.Model.Model, spec, c.in)
	info := &scoring.JudgeInfo{Model: c.j.o.Model.Model, Samples: c.j.o.Samples}
	var reasons []string
	for k := 0; k < c.j.o.Samples; k++ {
		v, err := c.sample(ctx, spec.Name, k, req, info)
		if err != nil {
			return scoring.Score{}, err
		}
		info.Values = append(info.Values, v.Score)
		reasons = append(reasons, v.Reason)
	}
	mean, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
	for _, v := range info.Values {
		mean += v
		lo, hi = min(lo, v), max(hi, v)
	}
	mean /= float64(len(info.Values))
	info.Spread = hi - lo
	info.Split = lo < spec.Threshold && hi >= spec.Threshold
	pass := mean >= spec.Threshold
	return scoring.Score{Name: spec.Name, Type: scoring.TypeLLMJudge, Pass: pass, Value: mean,
		Reason: reason(mean, spec.Threshold, info.Values, reasons[0]), Judge: info}, nil
}

// reason is the score's reason: the judge's score against the threshold,
// the samples when there were several, and the (first) judge's reason.
func reason(mean, threshold float64, values []float64, why string) string {
	op := ">="
	if mean < threshold {
		op = "<"
	}
	s := "judge score " + num(mean) + " " + op + " " + num(threshold)
	if len(values) > 1 {
		parts := make([]string, len(values))
		for i, v := range values {
			parts[i] = num(v)
		}
		s += " (mean of " + strconv.Itoa(len(values)) + " samples: " + strings.Join(parts, ", ") + ")"
	}
	return s + ": " + why
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// sample asks once, and once more with the judge's own answer and what
// was wrong with it when it was no verdict; a second miss is E-EVL-091.
func (c *caseJudge) sample(ctx context.Context, scorer string, k int, req *inference.Request, info *scoring.JudgeInfo) (verdict, error) {
	resp, err := c.call(ctx, scorer, k, 1, req, info)
	if err != nil {
		return verdict{}, err
	}
	v, perr := parseVerdict(resp)
	if perr == nil {
		return v, nil
	}
	repair := *req
	repair.Messages = append(append([]inference.Message(nil), req.Messages...), repairMessages(resp, perr)...)
	resp, err = c.call(ctx, scorer, k, 2, &repair, info)
	if err != nil {
		return verdict{}, err
	}
	v, perr2 := parseVerdict(resp)
	if perr2 != nil {
		return verdict{}, errcode.New(errcode.JudgeAnswer, "judge scorer %q: the judge's answer is no verdict (%v), nor after one repair (%v)", scorer, perr, perr2).
			WithHint("see the session's " + LogFile + "; a judge model that cannot call tools must answer with only {\"score\": 0..1, \"reason\": \"...\"}")
	}
	return v, nil
}

// repairMessages answer a bad verdict: the judge's answer as it was, then
// what was wrong, as the tool call's error result when it called a tool,
// else as a user message.
func repairMessages(resp *inference.Response, why error) []inference.Message {
	msgs := []inference.Message{inference.AssistantMessage(resp.Content)}
	text := fmt.Sprintf("That is not a valid verdict: %v. Call %s once with score a number from 0 to 1 and reason a string.", why, verdictTool)
	for _, b := range resp.Blocks {
		if b.Type == "tool_call" {
			return append(msgs, inference.ToolMessage(b.ID, true, text))
		}
	}
	return append(msgs, inference.UserMessage(text))
}

// call sends one request and keeps its exchange in the session's log.
func (c *caseJudge) call(ctx context.Context, scorer string, k, attempt int, req *inference.Request, info *scoring.JudgeInfo) (*inference.Response, error) {
	start := time.Now()
	resp, err := c.p.Complete(ctx, req, c.obs)
	took := time.Since(start)
	info.LatencyMS += float64(took.Microseconds()) / 1000
	if resp != nil && resp.Usage != nil {
		info.InputTokens += resp.Usage.InputTokens
		info.OutputTokens += resp.Usage.OutputTokens
	}
	c.log(exchange{Scorer: scorer, Sample: k + 1, Attempt: attempt, Model: req.Model,
		RequestSHA256: inference.RequestDigest(req, c.in.SessionDir), LatencyMS: took.Milliseconds(),
		Messages: req.Messages, Answer: answerOf(resp), Error: errText(err)}, k == 0 && attempt == 1)
	if err != nil {
		return nil, errcode.WrapKeep(errcode.ProviderUnavailable, err, "judge scorer %q", scorer)
	}
	return resp, nil
}

// exchange is one line of logs/judge.jsonl.
type exchange struct {
	Scorer        string              `json:"scorer"`
	Sample        int                 `json:"sample"`
	Attempt       int                 `json:"attempt"`
	Model         string              `json:"model"`
	RequestSHA256 string              `json:"request_sha256"`
	LatencyMS     int64               `json:"latency_ms"`
	System        string              `json:"system,omitempty"`
	Messages      []inference.Message `json:"messages"`
	Answer        json.RawMessage     `json:"answer,omitempty"`
	Error         string              `json:"error,omitempty"`
}

// log appends the exchange to the session's judge log (the system prompt
// on a scorer's first call only). The log is for people; failing to write
// it fails nothing.
func (c *caseJudge) log(e exchange, first bool) {
	if c.in.SessionDir == "" {
		return
	}
	if first {
		e.System = systemPrompt
	}
	line, err := json.Marshal(e)
	if err != nil {
		return
	}
	_ = sessionfs.AppendFile(c.in.SessionDir, LogFile, append(line, '\n'), 0o644)
}

func answerOf(resp *inference.Response) json.RawMessage {
	if resp == nil {
		return nil
	}
	a, _ := json.Marshal(struct {
		StopReason string           `json:"stop_reason"`
		Content    json.RawMessage  `json:"content"`
		Usage      *inference.Usage `json:"usage,omitempty"`
	}{resp.StopReason, resp.Content, resp.Usage})
	return a
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
