package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/murmur-nexus/murmur-eval/reports"
)

// childRun is one whole run of the binary under test.
type childRun struct {
	Cases     int                `json:"cases"`
	Workers   int                `json:"workers"`
	WallS     float64            `json:"wall_s"`     // the child process, start to exit
	RunWallS  float64            `json:"run_wall_s"` // summary.json wall_ms: first case start to last case end
	CPUS      float64            `json:"cpu_s"`      // user + system time of the child
	UserS     float64            `json:"user_s"`     // of which user time
	SysS      float64            `json:"sys_s"`      // and system time (file-system calls, mostly)
	MaxRSSMiB float64            `json:"max_rss_mib"`
	MinFaults int64              `json:"minor_faults"` // minor page faults of the child
	Load1     float64            `json:"load1"`        // 1-minute load average just before the run
	StageMS   map[string]float64 `json:"stage_median_ms,omitempty"`
	// Waves is when the model server got the run's requests, a wave per
	// round of workers (the waiting suite's runs only).
	Waves []waveStat `json:"waves,omitempty"`
	// FirstRequestMS is the time from starting the child to the model
	// server getting its first request (start-up and the first case's
	// preparation); AfterLastAnswerMS from the last answer (the last
	// request's arrival and the model's latency) to the child's exit
	// (finishing the last cases and writing the reports). Waiting suite
	// only.
	FirstRequestMS    float64 `json:"first_request_ms,omitempty"`
	AfterLastAnswerMS float64 `json:"after_last_answer_ms,omitempty"`
	Events            int64   `json:"-"`
	// started and exited are when the child process began and ended.
	started, exited time.Time
}

// command is the binary under test with args and a clean environment: no
// MURMUR_EVAL_* or OTEL_* variable of the caller's leaks into a run.
func (h *harness) command(args ...string) *exec.Cmd {
	cmd := exec.Command(h.bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MURMUR_EVAL_") && !strings.HasPrefix(kv, "OTEL_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	return cmd
}

// evalRun runs one evaluation of n cases into a fresh folder and checks
// that every case passed; stages asks for the per-stage medians.
func (h *harness) evalRun(ctx context.Context, name, capsule, dataset string, n, workers int, stages bool, extra ...string) (childRun, error) {
	out := filepath.Join(h.work, "runs", fmt.Sprintf("%s-%d", name, h.seq))
	h.seq++
	args := append([]string{capsule, "--dataset", dataset, "--out", out, "--workers", fmt.Sprint(workers),
		"--progress", "none", "--cache-dir", filepath.Join(h.work, "cache")}, extra...)
	if h.profileDir != "" {
		base := filepath.Join(h.profileDir, fmt.Sprintf("%s-w%d-n%d-%d", name, workers, n, h.seq-1))
		args = append(args, "--cpuprofile", base+".cpu.pprof", "--memprofile", base+".mem.pprof")
	}
	cmd := h.command(args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	r := childRun{Cases: n, Workers: workers, Load1: load1()}
	r.started = time.Now()
	err := cmd.Run()
	r.exited = time.Now()
	r.WallS = r.exited.Sub(r.started).Seconds()
	if err != nil {
		return r, fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, tail(stderr.String(), 2000))
	}
	r.UserS, r.SysS = cmd.ProcessState.UserTime().Seconds(), cmd.ProcessState.SystemTime().Seconds()
	r.CPUS = r.UserS + r.SysS
	r.MaxRSSMiB = maxRSSMiB(cmd.ProcessState)
	r.MinFaults = minorFaults(cmd.ProcessState)
	var d struct {
		Cases    int            `json:"cases"`
		Statuses map[string]int `json:"statuses"`
		WallMS   float64        `json:"wall_ms"`
	}
	raw, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err == nil {
		err = json.Unmarshal(raw, &d)
	}
	if err != nil {
		return r, fmt.Errorf("%s: summary.json: %v", name, err)
	}
	if d.Cases != n || d.Statuses["passed"] != n {
		return r, fmt.Errorf("%s: %d cases, statuses %v; want %d passed\n%s", name, d.Cases, d.Statuses, n, tail(stderr.String(), 2000))
	}
	r.RunWallS = d.WallMS / 1000
	if stages {
		if r.StageMS, err = stageMedians(out); err != nil {
			return r, err
		}
	}
	// The run folder stays until the harness ends (main removes the whole
	// work folder then). Removing it here made the next run's figures
	// measure this one's deletion: this VM's ext4 (no journal) skips
	// recently deleted inodes when it allocates, and thousands of them
	// doubled the next run's system time (BENCHMARKS.md, "Run folders are
	// removed at the end").
	return r, nil
}

// stageMedians reads results.parquet back and takes the median of each
// stage's wall time and of the whole case.
func stageMedians(out string) (map[string]float64, error) {
	run, err := reports.ReadRun(out)
	if err != nil {
		return nil, err
	}
	cols := map[string][]float64{}
	add := func(k string, v *float64) {
		if v != nil {
			cols[k] = append(cols[k], *v)
		}
	}
	stageCols := reports.StageColumns()
	for i := range run.Results {
		r := &run.Results[i]
		for _, c := range stageCols {
			add(c.Stage, c.Of(r))
		}
		d := r.DurationMS
		add("case", &d)
	}
	m := map[string]float64{}
	for k, v := range cols {
		m[k] = median(v)
	}
	return m, nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// load1 is the machine's 1-minute load average, recorded beside every
// figure: the benchmarks share the machine with whatever else runs.
func load1() float64 {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	var l float64
	if _, err := fmt.Sscan(string(raw), &l); err != nil {
		return -1
	}
	return l
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
