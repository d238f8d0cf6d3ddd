package main

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/scoring"
	"github.com/murmur-nexus/murmur-eval/scoring/judge"
)

// judgeOptions are the judge model's flags: who scores the llm_judge
// scorers (docs/scoring.md). The key comes from the environment only.
type judgeOptions struct {
	provider, endpoint, model string
	samples                   int
	apiKey                    string
}

// The judge's providers, and their APIs' default endpoints.
const (
	judgeOpenAI    = "openai"
	judgeAnthropic = "anthropic"
)

func judgeEndpoints() map[string]string {
	return map[string]string{judgeOpenAI: "https://api.openai.com/v1", judgeAnthropic: "https://api.anthropic.com"}
}

// maxJudgeSamples bounds --judge-samples: each sample is a request per
// case and scorer.
const maxJudgeSamples = 20

// registerJudgeFlags adds the judge's flags to fs, with env as their
// defaults (MURMUR_EVAL_JUDGE_*); the key is MURMUR_EVAL_JUDGE_API_KEY.
func registerJudgeFlags(j *judgeOptions, fs *pflag.FlagSet, env map[string]string, envErrs *[]error) {
	fs.StringVar(&j.provider, "judge-provider", cmp.Or(env["MURMUR_EVAL_JUDGE_PROVIDER"], judgeOpenAI), "the judge model's API, openai or anthropic (env MURMUR_EVAL_JUDGE_PROVIDER)")
	fs.StringVar(&j.endpoint, "judge-endpoint", env["MURMUR_EVAL_JUDGE_ENDPOINT"], "the judge model's endpoint (env MURMUR_EVAL_JUDGE_ENDPOINT) (default the provider's: https://api.openai.com/v1, https://api.anthropic.com)")
	fs.StringVar(&j.model, "judge-model", env["MURMUR_EVAL_JUDGE_MODEL"], "the model that scores the llm_judge scorers (the manifest's, and cases' expected.rubric); its key is MURMUR_EVAL_JUDGE_API_KEY (env MURMUR_EVAL_JUDGE_MODEL)")
	fs.IntVar(&j.samples, "judge-samples", envInt(env, "MURMUR_EVAL_JUDGE_SAMPLES", 1, envErrs), "times each case is judged per scorer; the score is their mean, their spread is recorded (env MURMUR_EVAL_JUDGE_SAMPLES)")
	j.apiKey = env["MURMUR_EVAL_JUDGE_API_KEY"]
}

// validate checks the judge's flags, each error a usage error.
func (j *judgeOptions) validate() error {
	if _, ok := judgeEndpoints()[j.provider]; !ok {
		return errcode.New(errcode.Usage, "--judge-provider %q: want %s or %s", j.provider, judgeOpenAI, judgeAnthropic)
	}
	if j.samples < 1 || j.samples > maxJudgeSamples {
		return errcode.New(errcode.Usage, "--judge-samples must be from 1 to %d, got %d", maxJudgeSamples, j.samples)
	}
	return nil
}

// configured reports whether a judge model was named.
func (j *judgeOptions) configured() bool { return j.model != "" }

// args are the judge's flags not at their defaults, for the command line
// that resumes a run (the key is never written: it stays in the
// environment); none without a judge model.
func (j *judgeOptions) args() []string {
	if !j.configured() {
		return nil
	}
	var args []string
	if j.provider != judgeOpenAI {
		args = append(args, "--judge-provider", j.provider)
	}
	if j.endpoint != "" {
		args = append(args, "--judge-endpoint", j.endpoint)
	}
	args = append(args, "--judge-model", j.model)
	if j.samples != 1 {
		args = append(args, "--judge-samples", strconv.Itoa(j.samples))
	}
	return args
}

// fingerprint is the judge's part of a run's configuration (its flags as
// args gives them), "" without a judge model, so a resume under another
// judge is refused as a changed configuration.
func (j *judgeOptions) fingerprint() string { return strings.Join(j.args(), " ") }

// judge is the run's judge over src (models.Models.Judge).
func (j *judgeOptions) judge(src inference.Source) scoring.Judge {
	return judge.New(judge.Options{Source: src, Samples: j.samples, Model: inference.Config{
		Transport: "http", Endpoint: cmp.Or(j.endpoint, judgeEndpoints()[j.provider]), Model: j.model,
		APIKey: j.apiKey, DriverArtifact: "murmur-driver-" + j.provider,
	}})
}
