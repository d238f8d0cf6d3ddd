package main

import (
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/collect"
	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/progress"
)

// Session folders kept at the end of each case (--keep-sessions).
const (
	keepAll    = collect.KeepAll
	keepFailed = collect.KeepFailed
	keepNone   = collect.KeepNone
)

// batchOptions are the flags of long runs: epochs, retries, resume,
// selection and sharding, progress, telemetry and disk housekeeping.
type batchOptions struct {
	epochs       int
	passAt       []int
	retries      int
	retryBackoff time.Duration
	resume       string
	filter       string
	limit        int
	shardFlag    string
	shardCount   int // with JOB_COMPLETION_INDEX: a Kubernetes Indexed Job
	shard        datasets.Shard
	progress     progress.Mode
	progressFlag string
	otelEndpoint string
	keepSessions string
}

func (b *batchOptions) register(fs *pflag.FlagSet, env map[string]string, errs *[]error) {
	fs.IntVar(&b.epochs, "epochs", envInt(env, "MURMUR_EVAL_EPOCHS", 1, errs), "run each case this many times, each in its own session (env MURMUR_EVAL_EPOCHS)")
	fs.IntSliceVar(&b.passAt, "pass-at", envInts(env, "MURMUR_EVAL_PASS_AT", errs), "report the unbiased pass@k for these k, comma separated, e.g. 1,5 (env MURMUR_EVAL_PASS_AT)")
	fs.IntVar(&b.retries, "retries", envInt(env, "MURMUR_EVAL_RETRIES", 0, errs), "run a case that ended in status error (a harness failure) again, up to N times; failed and timeout are never retried (env MURMUR_EVAL_RETRIES)")
	fs.DurationVar(&b.retryBackoff, "retry-backoff", envDuration(env, "MURMUR_EVAL_RETRY_BACKOFF", time.Second, errs), "wait before the first retry, doubled for each next one up to 1m (env MURMUR_EVAL_RETRY_BACKOFF)")
	fs.StringVar(&b.resume, "resume", "", "finish the interrupted run in this folder: rerun only the cases and epochs its journal lacks (same capsule, dataset and flags)")
	fs.StringVar(&b.filter, "filter", env["MURMUR_EVAL_FILTER"], "run only the cases whose whole case_id matches this glob: * ? [a-z], no {a,b} (env MURMUR_EVAL_FILTER)")
	fs.IntVar(&b.limit, "limit", envInt(env, "MURMUR_EVAL_LIMIT", 0, errs), "run only the first N selected cases of the dataset, 0 for all (env MURMUR_EVAL_LIMIT)")
	fs.StringVar(&b.shardFlag, "shard", env["MURMUR_EVAL_SHARD"], "run only shard I of N (I/N, 0-based) by a stable hash of case_id (env MURMUR_EVAL_SHARD; or JOB_COMPLETION_INDEX with --shard-count)")
	fs.IntVar(&b.shardCount, "shard-count", envInt(env, "MURMUR_EVAL_SHARD_COUNT", 0, errs), "shard count N when the index comes from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) (env MURMUR_EVAL_SHARD_COUNT)")
	fs.StringVar(&b.progressFlag, "progress", envOr(env, "MURMUR_EVAL_PROGRESS", string(progress.Auto)), "auto (a bar on a terminal, a line per case otherwise), bar, plain or none (env MURMUR_EVAL_PROGRESS)")
	fs.StringVar(&b.otelEndpoint, "otel-endpoint", envOr(env, "MURMUR_EVAL_OTEL_ENDPOINT", env["OTEL_EXPORTER_OTLP_ENDPOINT"]), "export OpenTelemetry spans over OTLP/HTTP to this URL (env MURMUR_EVAL_OTEL_ENDPOINT, OTEL_EXPORTER_OTLP_ENDPOINT)")
	fs.StringVar(&b.keepSessions, "keep-sessions", envOr(env, "MURMUR_EVAL_KEEP_SESSIONS", keepAll), "session folders to keep: all, failed (every attempt that did not pass) or none (env MURMUR_EVAL_KEEP_SESSIONS)")
}

// validate checks the flags and resolves the shard, from --shard or from a
// Kubernetes Indexed Job's JOB_COMPLETION_INDEX.
func (b *batchOptions) validate(env map[string]string) error {
	switch {
	case b.epochs < 1:
		return errcode.New(errcode.Usage, "--epochs must be at least 1, got %d", b.epochs)
	case b.retries < 0:
		return errcode.New(errcode.Usage, "--retries must not be negative, got %d", b.retries)
	case b.retryBackoff < 0:
		return errcode.New(errcode.Usage, "--retry-backoff must not be negative, got %s", b.retryBackoff)
	case b.keepSessions != keepAll && b.keepSessions != keepFailed && b.keepSessions != keepNone:
		return errcode.New(errcode.Usage, "invalid --keep-sessions %q: want all, failed or none", b.keepSessions)
	}
	for _, k := range b.passAt {
		if k < 1 || k > b.epochs {
			return errcode.New(errcode.Usage, "--pass-at %d: k must be from 1 to --epochs (%d)", k, b.epochs).
				WithHint("pass@k needs at least k epochs per case: raise --epochs")
		}
	}
	mode, err := progress.ParseMode(b.progressFlag)
	if err != nil {
		return err
	}
	b.progress = mode
	shard := b.shardFlag
	if idx := env["JOB_COMPLETION_INDEX"]; shard == "" && idx != "" && b.shardCount > 0 {
		shard = idx + "/" + strconv.Itoa(b.shardCount)
	} else if shard == "" && b.shardCount > 0 {
		return errcode.New(errcode.Usage, "--shard-count %d without JOB_COMPLETION_INDEX", b.shardCount).
			WithHint("--shard-count is for a Kubernetes Indexed Job; elsewhere use --shard I/N")
	}
	if b.shard, err = datasets.ParseShard(shard); err != nil {
		return err
	}
	return b.selection().Validate()
}

// selection is the cases the run takes from the dataset.
func (b *batchOptions) selection() datasets.Selection {
	return datasets.Selection{Filter: b.filter, Shard: b.shard, Limit: b.limit}
}

// envOr is env[key], or def when unset or empty.
func envOr(env map[string]string, key, def string) string {
	if v := env[key]; v != "" {
		return v
	}
	return def
}

// envInts reads a comma-separated list of integers from the environment.
func envInts(env map[string]string, key string, errs *[]error) []int {
	v := env[key]
	if v == "" {
		return nil
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			*errs = append(*errs, errcode.New(errcode.Usage, "%s=%q is not a list of integers", key, v))
			return nil
		}
		out = append(out, n)
	}
	return out
}
