package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/gates"
	"github.com/murmur-nexus/murmur-eval/internal/profiling"
	"github.com/murmur-nexus/murmur-eval/scoring"
)

// runUsageLine is the run command's synopsis, the first line of its usage.
const runUsageLine = "murmur-eval [run] [CAPSULE_DIR] --dataset FILE [flags]"

const runUsage = `Usage: ` + runUsageLine + `
       murmur-eval show RUN [--json | --markdown]
       murmur-eval diff BASE HEAD [--json] [--alpha A] [--max-drop PP]
       murmur-eval diff --variant A --variant B RUN [--json]
       murmur-eval merge -o OUT SHARD_RUN... [--allow-missing]
       murmur-eval score RUN --out DIR [--dataset FILE] [--judge-model NAME]
       murmur-eval report RUN... [-o report.html]
       murmur-eval view RUN [BASELINE_RUN] -o DIR
       murmur-eval pack ARTIFACT_DIR... [--store DIR] [-o NAME-VERSION.mur.zip]
       murmur-eval help [SUBCOMMAND]
       murmur-eval version

Runs every case of a dataset through the murmur capsule in CAPSULE_DIR
(default "."), each case in its own sandboxed session, scores it, and
writes to --out: results.parquet, scores.parquet, events.parquet,
summary.json, summary.md, junit.xml, the session folders, and run.json
and journal.jsonl, from which --resume finishes an interrupted run
(docs/long-runs.md).

A flag whose help names an environment variable can also come from it;
a flag on the command line wins over the environment, which wins over the
default.

Exit codes: 0 success (every gate passed); 1 murmur-eval failed to write
its outputs; 2 usage or configuration error (a selection of no case,
what mur eval run refuses or a scorer or check that would not be applied,
without --run-anyway, a warning under --strict), or the capsule was
refused; no case started; 3 error budget
exceeded (cases in status error, timeout or over_budget beyond
--max-error-rate, by default any), or the model endpoint could not be reached; 4 a gate failed
(--fail-under, or a regression against --baseline); 5 replayed requests
differed from the recordings (beyond --max-divergence, by default any);
6 --max-cost reached, the rest of the run not started (--resume
finishes it); 130 interrupted (docs/exit-codes.md).

Flags:
`

// options are the run command's settings after flags and environment.
type options struct {
	capsuleDir string
	dataset    string
	out        string
	workers    int
	pacing     string // --pacing: pacingAdaptive or pacingSemaphore
	replay     string
	driver     string // --driver: "installed" (the capsule's driver component) or "builtin"
	record     string
	modelCache string // --cache: the model-turn cache folder
	maxConns   int
	conns      string // --connections: connectionsAdaptive or connectionsFixed
	timeout    time.Duration
	cacheDir   string
	// checkTimeout bounds an expected check command without its own
	// timeout_seconds.
	checkTimeout time.Duration
	// allowTaskOutside lets a dataset's task_path name files outside its
	// folder.
	allowTaskOutside bool
	gates            gates.Options
	batch            batchOptions
	profile          profiling.Files
	version          bool
	// strict refuses the run when its inputs drew a warning (unknown
	// keys, unread expected values), before any case starts.
	strict bool
	// runAnyway runs despite what refuses a run by default (murmur's
	// refusals, a scorer or check that would not be applied), which are
	// then warnings.
	runAnyway bool
	// hugePages advises transparent huge pages for the heap the run will
	// build (hugepages.go).
	hugePages bool
	// murmurDifferences prints, after the summary, why cases' verdicts
	// differ from the ones mur eval run would give (summary.md always
	// has it).
	murmurDifferences bool
	// workdirMaxFiles bounds the entries a case's session may hold (a
	// murmur-eval extension to workdir_max_bytes; 0: no bound).
	workdirMaxFiles int
	// judge is the judge model's flags (llm_judge scorers).
	judge judgeOptions
	// variants are --models and --variants (variantflags.go).
	variants variantOptions
	// budget is --max-cost, --case-max-tokens, --case-max-cost
	// (budgetflags.go).
	budget budgetOptions
	// prices is --prices, the table cost is computed with (priceflags.go).
	prices priceOptions
}

// defaultWorkdirMaxFiles is --workdir-max-files' default: past what an
// ordinary case creates, and what the guard can still walk within its
// 250 ms tick (RATIONALE.md, "Why a bound on a session's files, and why
// 50,000?").
const defaultWorkdirMaxFiles = 50_000

// newRunFlags is the run command's flag set, writing into o, with env as
// the source of defaults, and the environment values that did not parse.
func newRunFlags(o *options, env map[string]string, stderr io.Writer) (*pflag.FlagSet, []error) {
	var envErrs []error
	fs := pflag.NewFlagSet("murmur-eval", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, runUsage); fs.PrintDefaults() }
	fs.StringVar(&o.dataset, "dataset", env["MURMUR_EVAL_DATASET"], "dataset JSONL file, one case per line (env MURMUR_EVAL_DATASET; default ./eval.jsonl, as murmur)")
	fs.StringVar(&o.out, "out", env["MURMUR_EVAL_OUT"], "run folder to create (must not exist or be empty; env MURMUR_EVAL_OUT) (default runs/<run id>)")
	fs.IntVar(&o.workers, "workers", envInt(env, "MURMUR_EVAL_WORKERS", runtime.NumCPU(), &envErrs), "cases in their session loop at once; up to as many more are prepared ahead or finished while they wait (--pacing adaptive) (env MURMUR_EVAL_WORKERS)")
	fs.StringVar(&o.pacing, "pacing", cmp.Or(env["MURMUR_EVAL_PACING"], pacingAdaptive), "when cases start, prepare and finish around their session loop: \"adaptive\" prepares up to --workers more cases ahead and finishes cases while the sessions wait for their model; \"semaphore\" runs --workers cases, each straight through (env MURMUR_EVAL_PACING)")
	fs.StringVar(&o.replay, "replay", env["MURMUR_EVAL_REPLAY"], "serve model responses from the recordings in this folder (env MURMUR_EVAL_REPLAY)")
	fs.StringVar(&o.record, "record", env["MURMUR_EVAL_RECORD"], "also write every model response to this folder, for --replay (env MURMUR_EVAL_RECORD)")
	fs.StringVar(&o.modelCache, "cache", env["MURMUR_EVAL_CACHE"], "cache model turns in this folder: a request answered before (same model, endpoint, driver, epoch) is served from it, others are sent and kept; not with --replay; not --cache-dir, the WASM cache (env MURMUR_EVAL_CACHE)")
	fs.StringVar(&o.driver, "driver", cmp.Or(env["MURMUR_EVAL_DRIVER"], driverInstalled), "who answers model turns of a transport: http capsule: \"installed\" runs the capsule's driver component, as murmur (a driver no artifacts: entry declares, E-RUN-006, or an endpoint outside its network.allow, E-EVL-081, refuses the run); \"builtin\" the built-in provider for murmur's own drivers, those two then warnings (env MURMUR_EVAL_DRIVER)")
	fs.IntVar(&o.maxConns, "max-connections", envInt(env, "MURMUR_EVAL_MAX_CONNECTIONS", 0, &envErrs), "model requests in flight per endpoint across all cases, 0 for no bound beyond --workers (env MURMUR_EVAL_MAX_CONNECTIONS)")
	fs.StringVar(&o.conns, "connections", cmp.Or(env["MURMUR_EVAL_CONNECTIONS"], connectionsAdaptive), "model requests in flight per endpoint: \"adaptive\" halves them on a 429 or 503 and grows them back, within --max-connections; \"fixed\" keeps --max-connections (env MURMUR_EVAL_CONNECTIONS)")
	fs.DurationVar(&o.timeout, "timeout", envDuration(env, "MURMUR_EVAL_TIMEOUT", 10*time.Minute, &envErrs), "time limit per case, 0 for none (env MURMUR_EVAL_TIMEOUT)")
	fs.StringVar(&o.cacheDir, "cache-dir", env["MURMUR_EVAL_CACHE_DIR"], "compiled-WASM cache folder, \"off\" for none (env MURMUR_EVAL_CACHE_DIR) (default <user cache dir>/murmur-eval)")
	fs.DurationVar(&o.checkTimeout, "check-timeout", envDuration(env, "MURMUR_EVAL_CHECK_TIMEOUT", scoring.DefaultCheckTimeout, &envErrs), "time limit of a case's expected check command without its own timeout_seconds (env MURMUR_EVAL_CHECK_TIMEOUT)")
	fs.BoolVar(&o.allowTaskOutside, "allow-task-outside-dataset", envBool(env, "MURMUR_EVAL_ALLOW_TASK_OUTSIDE_DATASET", false, &envErrs), "let the dataset's task_path name files outside the dataset's folder, symlinks resolved (env MURMUR_EVAL_ALLOW_TASK_OUTSIDE_DATASET)")
	fs.BoolVar(&o.strict, "strict", envBool(env, "MURMUR_EVAL_STRICT", false, &envErrs), "refuse the run (exit 2) when murmur.yaml, an artifact manifest or a case's expected drew a warning, such as an unknown key (env MURMUR_EVAL_STRICT)")
	fs.BoolVar(&o.murmurDifferences, "murmur-differences", envBool(env, "MURMUR_EVAL_MURMUR_DIFFERENCES", false, &envErrs), "after the summary, say which cases mur eval run would give another verdict, and why (summary.md always says; env MURMUR_EVAL_MURMUR_DIFFERENCES)")
	fs.BoolVar(&o.runAnyway, "run-anyway", envBool(env, "MURMUR_EVAL_RUN_ANYWAY", false, &envErrs), "run despite what refuses a run before any case by default, which is then a warning: what mur eval run refuses or hangs on (E-RUN-006, E-EVL-081, E-EVL-080), a scorer or check the inputs configure that would not be applied (E-EVL-007), judge scorers with no judge model (E-EVL-090); summary.json's ran_despite lists them (env MURMUR_EVAL_RUN_ANYWAY)")
	fs.IntVar(&o.workdirMaxFiles, "workdir-max-files", envInt(env, "MURMUR_EVAL_WORKDIR_MAX_FILES", defaultWorkdirMaxFiles, &envErrs), "stop a case (E-RUN-013) whose session holds more files, folders and links than this, deleted ones its tools keep open included; raised by a copied workspace's own; 0 for no bound (env MURMUR_EVAL_WORKDIR_MAX_FILES)")
	fs.BoolVar(&o.hugePages, "huge-pages", envBool(env, "MURMUR_EVAL_HUGE_PAGES", true, &envErrs), "ask Linux for transparent huge pages for the run's heap, which saves most of its page faults; false if the machine stalls compacting memory (env MURMUR_EVAL_HUGE_PAGES)")
	registerJudgeFlags(&o.judge, fs, env, &envErrs)
	o.variants.register(fs, env)
	o.budget.register(fs, env, &envErrs)
	o.prices.register(fs, env)
	registerRunGates(&o.gates, fs, env, &envErrs)
	o.batch.register(fs, env, &envErrs)
	registerProfileFlags(&o.profile, fs)
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	return fs, envErrs
}

// parseRunFlags parses args with env as the source of defaults. It returns
// ok=false with the exit code when the command should stop (help, errors).
func parseRunFlags(args []string, env map[string]string, stderr io.Writer) (options, int, bool) {
	var o options
	fs, envErrs := newRunFlags(&o, env, stderr)
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return o, exitOK, false
		}
		return o, usageError(stderr, flagError(fs, err, "murmur-eval --help")), false
	}
	if o.version {
		return o, exitOK, true
	}
	if len(envErrs) > 0 {
		return o, usageError(stderr, envErrs[0]), false
	}
	switch fs.NArg() {
	case 0:
		o.capsuleDir = "."
	case 1:
		o.capsuleDir = fs.Arg(0)
	default:
		return o, usageError(stderr, errcode.New(errcode.Usage, "expected one CAPSULE_DIR, got %d arguments", fs.NArg())), false
	}
	if err := o.validate(env); err != nil {
		return o, usageError(stderr, err), false
	}
	return o, exitOK, true
}

// defaultDataset is the dataset when --dataset is not given, as in murmur.
const defaultDataset = "eval.jsonl"

func (o *options) validate(env map[string]string) error {
	if o.dataset == "" {
		// murmur's default: ./eval.jsonl in the working directory.
		if _, err := os.Stat(defaultDataset); err != nil {
			return errcode.New(errcode.IONotFound, "no dataset found. Expected ./%s or specify with --dataset <path>", defaultDataset).
				WithHint("--dataset FILE is required without ./%s: %s (murmur-eval help)", defaultDataset, runUsageLine)
		}
		o.dataset = defaultDataset
	}
	switch {
	case o.workers < 1:
		return errcode.New(errcode.Usage, "--workers must be at least 1, got %d", o.workers)
	case o.timeout < 0:
		return errcode.New(errcode.Usage, "--timeout must not be negative, got %s", o.timeout)
	case o.checkTimeout <= 0:
		return errcode.New(errcode.Usage, "--check-timeout must be positive, got %s", o.checkTimeout)
	case o.maxConns < 0:
		return errcode.New(errcode.Usage, "--max-connections must not be negative, got %d", o.maxConns)
	case o.workdirMaxFiles < 0:
		return errcode.New(errcode.Usage, "--workdir-max-files must not be negative, got %d", o.workdirMaxFiles).WithHint("0 is no bound")
	case o.driver != driverInstalled && o.driver != driverBuiltin:
		return errcode.New(errcode.Usage, "--driver %q: want %s or %s", o.driver, driverInstalled, driverBuiltin)
	case o.pacing != pacingAdaptive && o.pacing != pacingSemaphore:
		return errcode.New(errcode.Usage, "--pacing %q: want %s or %s", o.pacing, pacingAdaptive, pacingSemaphore)
	case o.conns != connectionsAdaptive && o.conns != connectionsFixed:
		return errcode.New(errcode.Usage, "--connections %q: want %s or %s", o.conns, connectionsAdaptive, connectionsFixed)
	}
	if err := o.judge.validate(); err != nil {
		return err
	}
	if err := o.variants.validate(); err != nil {
		return err
	}
	if err := o.budget.validate(); err != nil {
		return err
	}
	if err := o.prices.load(); err != nil {
		return err
	}
	if o.batch.resume != "" {
		if o.out != "" && filepath.Clean(o.out) != filepath.Clean(o.batch.resume) {
			return errcode.New(errcode.Usage, "--resume %s and --out %s name different folders", o.batch.resume, o.out).
				WithHint("--resume writes into the run it resumes; drop --out")
		}
		o.out = o.batch.resume
	}
	o.capsuleDir = filepath.Clean(o.capsuleDir)
	if err := o.batch.validate(env); err != nil {
		return err
	}
	return o.gates.Validate()
}

func usageError(stderr io.Writer, err error) int {
	fmt.Fprintln(stderr, errcode.Format(err))
	return exitUsage
}

// envInt reads an integer default from the environment; a value that does
// not parse is reported (once flags are parsed) rather than ignored.
// --driver's values.
const (
	driverInstalled = "installed"
	driverBuiltin   = "builtin"
)

// --pacing's values (package pacing).
const (
	pacingAdaptive  = "adaptive"
	pacingSemaphore = "semaphore"
)

func envInt(env map[string]string, key string, def int, errs *[]error) int {
	v, ok := env[key]
	if !ok || v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		*errs = append(*errs, errcode.New(errcode.Usage, "%s=%q is not an integer", key, v))
		return def
	}
	return n
}

// envDuration is envInt for durations ("90s", "10m").
func envDuration(env map[string]string, key string, def time.Duration, errs *[]error) time.Duration {
	v, ok := env[key]
	if !ok || v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		*errs = append(*errs, errcode.New(errcode.Usage, "%s=%q is not a duration (like 90s or 10m)", key, v))
		return def
	}
	return d
}

// envBool is envInt for booleans (true, false, 1, 0).
func envBool(env map[string]string, key string, def bool, errs *[]error) bool {
	v, ok := env[key]
	if !ok || v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		*errs = append(*errs, errcode.New(errcode.Usage, "%s=%q is not a boolean (true or false)", key, v))
		return def
	}
	return b
}

// registerProfileFlags adds the hidden flags that profile a run.
func registerProfileFlags(p *profiling.Files, fs *pflag.FlagSet) {
	fs.StringVar(&p.CPU, "cpuprofile", "", "write a CPU profile of the run to this file")
	fs.StringVar(&p.Mem, "memprofile", "", "write a heap profile to this file when the last case has finished")
	fs.StringVar(&p.Exec, "exectrace", "", "write a Go execution trace of the run to this file (go tool trace)")
	for _, name := range []string{"cpuprofile", "memprofile", "exectrace"} {
		_ = fs.MarkHidden(name)
	}
}
