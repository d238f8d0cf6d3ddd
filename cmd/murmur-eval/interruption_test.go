package main

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/scoring"
)

// TestStoppedLine: the interrupted run's last line counts the finished
// cases apart from the cancelled ones and those never started.
func TestStoppedLine(t *testing.T) {
	for _, tc := range []struct {
		planned, rows, unfinished int
		want                      string
	}{
		{12, 5, 2, "3 cases finished, 2 were cancelled, 7 not started"},
		{4, 4, 1, "3 cases finished, 1 was cancelled"},
		{10, 1, 0, "1 case finished, 9 not started"},
		{10, 0, 0, "0 cases finished, 10 not started"},
		{3, 3, 0, "3 cases finished"},
	} {
		if got := stoppedLine(tc.planned, tc.rows, tc.unfinished); got != tc.want {
			t.Errorf("stoppedLine(%d, %d, %d) = %q, want %q", tc.planned, tc.rows, tc.unfinished, got, tc.want)
		}
	}
}

// TestInterruptedLine: the line printed when the interrupt comes says
// what happens to the running cases.
func TestInterruptedLine(t *testing.T) {
	for _, tc := range []struct {
		running int
		checks  time.Duration
		want    string
	}{
		{0, 0, "murmur-eval: interrupted: starting no more cases;"},
		{1, 0, "murmur-eval: interrupted: cancelling the 1 running case and starting no more;"},
		{3, 0, "murmur-eval: interrupted: cancelling the 3 running cases and starting no more;"},
		{0, 5 * time.Minute, "murmur-eval: interrupted: starting no more cases;"},
		{2, 90 * time.Second, "murmur-eval: interrupted: cancelling the 2 running cases and starting no more " +
			"(a dataset check already under way still runs, up to its time limit: --check-timeout 1m30s unless it sets timeout_seconds);"},
	} {
		got := interruptedLine(tc.running, tc.checks)
		if !strings.HasPrefix(got, tc.want) || !strings.Contains(got, "Ctrl-C again exits at once") {
			t.Errorf("interruptedLine(%d, %s) = %q, want it to start %q and say what a second Ctrl-C does", tc.running, tc.checks, got, tc.want)
		}
	}
}

// TestInterruptionCountsRunningCases: the cases taken and not yet handed
// over are the running ones; the line is printed once, on an interrupt
// only.
func TestInterruptionCountsRunningCases(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cause error
		want  string
	}{
		{"interrupt", pipeline.ErrInterrupted, "cancelling the 2 running cases"},
		{"other cause", context.Canceled, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr syncBuffer
			in := &interruption{stderr: &stderr}
			jobs := in.jobs(func(yield func(pipeline.Job) bool) {
				for _, id := range []string{"a", "b", "c"} {
					if !yield(pipeline.Job{ID: id, Epoch: 1}) {
						return
					}
				}
			})
			from, to := make(chan *pipeline.Case, 3), make(chan *pipeline.Case, 3)
			go in.relay(from, to)
			for range jobs { // three started
			}
			from <- &pipeline.Case{ID: "a"} // one handed over
			<-to
			ctx, cancel := context.WithCancelCause(context.Background())
			defer in.watch(ctx)()
			cancel(tc.cause)
			deadline := time.Now().Add(5 * time.Second)
			for tc.want != "" && !strings.Contains(stderr.String(), tc.want) && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			close(from)
			if tc.want == "" {
				time.Sleep(20 * time.Millisecond)
				if stderr.String() != "" {
					t.Errorf("printed %q for a cause that is no interrupt", stderr.String())
				}
				return
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("printed %q, want %q", stderr.String(), tc.want)
			}
		})
	}
}

// TestResumeArgs: the resume command names the capsule, the dataset and
// the flags of the run's fingerprint that are not at their defaults, and
// --resume with the run folder; it leaves out what a resume may change.
func TestResumeArgs(t *testing.T) {
	base := options{capsuleDir: "caps", dataset: "cases.jsonl", out: "runs/r1", timeout: defaultTimeout,
		checkTimeout: scoring.DefaultCheckTimeout, driver: driverInstalled, workdirMaxFiles: defaultWorkdirMaxFiles, workers: 7,
		batch: batchOptions{epochs: 1, keepSessions: keepNone}}
	for _, tc := range []struct {
		name string
		edit func(*options)
		want []string
	}{
		{"defaults", func(*options) {}, []string{"murmur-eval", "caps", "--dataset", "cases.jsonl", "--resume", "runs/r1"}},
		{"fingerprint flags", func(o *options) {
			o.batch.epochs, o.batch.retries, o.batch.filter, o.batch.limit = 3, 2, "calc-*", 5
			o.batch.shard = datasets.Shard{Index: 1, Count: 4}
			o.timeout, o.checkTimeout, o.replay, o.record = 0, time.Minute, "rec", "new-rec"
			o.driver, o.workdirMaxFiles, o.allowTaskOutside = driverBuiltin, 10, true
		}, []string{"murmur-eval", "caps", "--dataset", "cases.jsonl", "--epochs", "3", "--retries", "2", "--filter", "calc-*",
			"--limit", "5", "--shard", "1/4", "--timeout", "0s", "--check-timeout", "1m0s", "--replay", "rec", "--record", "new-rec",
			"--driver", "builtin", "--workdir-max-files", "10", "--allow-task-outside-dataset", "--resume", "runs/r1"}},
		{"run anyway", func(o *options) { o.runAnyway = true }, []string{"murmur-eval", "caps", "--dataset", "cases.jsonl", "--run-anyway", "--resume", "runs/r1"}},
		{"judge", func(o *options) {
			o.judge = judgeOptions{provider: judgeAnthropic, endpoint: "http://judge", model: "j-1", samples: 3, apiKey: "secret"}
		}, []string{"murmur-eval", "caps", "--dataset", "cases.jsonl", "--judge-provider", "anthropic", "--judge-endpoint", "http://judge",
			"--judge-model", "j-1", "--judge-samples", "3", "--resume", "runs/r1"}},
		{"judge defaults", func(o *options) { o.judge = judgeOptions{provider: judgeOpenAI, model: "j-1", samples: 1} },
			[]string{"murmur-eval", "caps", "--dataset", "cases.jsonl", "--judge-model", "j-1", "--resume", "runs/r1"}},
		{"cache", func(o *options) { o.modelCache = ".cache/turns" }, []string{"murmur-eval", "caps", "--dataset", "cases.jsonl", "--cache", ".cache/turns", "--resume", "runs/r1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := base
			tc.edit(&o)
			if diff := gocmp.Diff(tc.want, resumeArgs(o, func(p string) string { return p })); diff != "" {
				t.Errorf("resumeArgs (-want +got):\n%s", diff)
			}
		})
	}
	abs := resumeArgs(base, func(p string) string { return "/w/" + p })
	if want := []string{"murmur-eval", "/w/caps", "--dataset", "/w/cases.jsonl", "--resume", "/w/runs/r1"}; !gocmp.Equal(want, abs) {
		t.Errorf("resumeArgs with absolute paths = %q, want %q", abs, want)
	}
}

// TestShellLine: what a POSIX shell reads back as the same words.
func TestShellLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"murmur-eval", "./caps", "--filter", "calc-*"}, "murmur-eval ./caps --filter 'calc-*'"},
		{[]string{"a b", "it's", ""}, `'a b' 'it'\''s' ''`},
		{[]string{"runs/r_1", "x=y,z:1@2%"}, "runs/r_1 x=y,z:1@2%"},
		{[]string{"$HOME", "a;b"}, `'$HOME' 'a;b'`},
	} {
		if got := shellLine(tc.args); got != tc.want {
			t.Errorf("shellLine(%q) = %s, want %s", tc.args, got, tc.want)
		}
	}
}

// syncBuffer is a strings.Builder written by one goroutine and read by
// another.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
