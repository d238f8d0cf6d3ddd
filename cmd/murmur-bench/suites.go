package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"time"

	"github.com/murmur-nexus/murmur-eval/reports"
)

// overheadResult is the trivial-case suite at one worker count.
type overheadResult struct {
	Workers int `json:"workers"`
	Cases   int `json:"cases"`
	// CasesPerS is cases / wall of the whole child process (start-up,
	// preparation and writing the outputs included); RunCasesPerS is cases
	// / the run's own wall (summary.json wall_ms).
	CasesPerS    float64 `json:"cases_per_s"`
	RunCasesPerS float64 `json:"run_cases_per_s"`
	// CPUPerCaseMS is the child's user+system time / cases;
	// MarginalCPUPerCaseMS first takes off the CPU of a one-case run (the
	// fixed cost of a run: start-up, preparation, closing the files).
	CPUPerCaseMS         float64            `json:"cpu_per_case_ms"`
	UserPerCaseMS        float64            `json:"user_per_case_ms"`
	SysPerCaseMS         float64            `json:"sys_per_case_ms"`
	MarginalCPUPerCaseMS float64            `json:"marginal_cpu_per_case_ms"`
	StageMS              map[string]float64 `json:"stage_median_ms"`
	Runs                 []childRun         `json:"runs"`
}

type fixedCost struct {
	WallS float64    `json:"wall_s"`
	CPUS  float64    `json:"cpu_s"`
	Runs  []childRun `json:"runs"`
}

type overheadSuite struct {
	Fixed   fixedCost        `json:"fixed_one_case_run"`
	Results []overheadResult `json:"results"`
}

func (h *harness) overhead(ctx context.Context, sz sizes) (*overheadSuite, error) {
	n := sz.OverheadCases
	dir := filepath.Join(h.work, "overhead")
	capsule := filepath.Join(dir, "capsule")
	if err := h.makeCapsule(capsule, "http://127.0.0.1:9", nil); err != nil {
		return nil, err
	}
	rec := filepath.Join(dir, "recordings")
	one := filepath.Join(dir, "one.jsonl")
	all := filepath.Join(dir, "cases.jsonl")
	if err := firstErr(makeRecordings(rec, n), makeDataset(one, 1), makeDataset(all, n)); err != nil {
		return nil, err
	}
	s := &overheadSuite{}
	// The first run compiles the tool into the cache and writes the lock;
	// it is not counted.
	if _, err := h.evalRun(ctx, "warm", capsule, one, 1, 1, false, "--replay", rec); err != nil {
		return nil, err
	}
	for range sz.Repeat {
		r, err := h.evalRun(ctx, "fixed", capsule, one, 1, 1, false, "--replay", rec)
		if err != nil {
			return nil, err
		}
		s.Fixed.Runs = append(s.Fixed.Runs, r)
	}
	s.Fixed.WallS = medianOf(s.Fixed.Runs, func(r childRun) float64 { return r.WallS })
	s.Fixed.CPUS = medianOf(s.Fixed.Runs, func(r childRun) float64 { return r.CPUS })
	h.progress("overhead: fixed cost of a one-case run: %.0f ms wall, %.0f ms CPU", s.Fixed.WallS*1000, s.Fixed.CPUS*1000)
	for _, w := range uniq(1, runtime.NumCPU()) {
		res := overheadResult{Workers: w, Cases: n}
		for range sz.Repeat {
			r, err := h.evalRun(ctx, "overhead", capsule, all, n, w, true, "--replay", rec)
			if err != nil {
				return nil, err
			}
			h.progress("overhead: %d cases, %d workers: %.0f cases/s, %.2f ms CPU/case (%.2f user, %.2f system) (load %.2f)",
				n, w, float64(n)/r.WallS, r.CPUS*1000/float64(n), r.UserS*1000/float64(n), r.SysS*1000/float64(n), r.Load1)
			res.Runs = append(res.Runs, r)
		}
		res.CasesPerS = medianOf(res.Runs, func(r childRun) float64 { return float64(n) / r.WallS })
		res.RunCasesPerS = medianOf(res.Runs, func(r childRun) float64 { return float64(n) / r.RunWallS })
		res.CPUPerCaseMS = medianOf(res.Runs, func(r childRun) float64 { return r.CPUS * 1000 / float64(n) })
		res.UserPerCaseMS = medianOf(res.Runs, func(r childRun) float64 { return r.UserS * 1000 / float64(n) })
		res.SysPerCaseMS = medianOf(res.Runs, func(r childRun) float64 { return r.SysS * 1000 / float64(n) })
		res.MarginalCPUPerCaseMS = medianOf(res.Runs, func(r childRun) float64 { return (r.CPUS - s.Fixed.CPUS) * 1000 / float64(n) })
		res.StageMS = medianRun(res.Runs, func(r childRun) float64 { return r.WallS }).StageMS
		s.Results = append(s.Results, res)
	}
	return s, nil
}

// scalingResult is the latency-bound suite at one worker count.
type scalingResult struct {
	// Path is who answered the model turns: builtin or driver (paths.go).
	Path    string  `json:"path"`
	Workers int     `json:"workers"`
	Cases   int     `json:"cases"`
	IdealS  float64 `json:"ideal_s"` // ceil(cases/workers) * turns * delay
	// Efficiency is ideal / the run's wall (summary.json wall_ms, first
	// case start to last case end); ProcessEfficiency is ideal / the
	// child process's wall, start-up and output files included.
	Efficiency        float64    `json:"efficiency"`
	ProcessEfficiency float64    `json:"process_efficiency"`
	PeakInflight      int64      `json:"peak_inflight"` // most requests the server held at once
	Runs              []childRun `json:"runs"`
}

// scaling runs the latency-bound suite on every path of h.paths, its
// runs alternating between them; the results are by path.
func (h *harness) scaling(ctx context.Context, sz sizes) (map[string][]scalingResult, error) {
	srv, err := startModelServer(sz.Delay, sz.Turns)
	if err != nil {
		return nil, err
	}
	defer srv.close()
	n := sz.ScalingCases
	dir := filepath.Join(h.work, "scaling")
	capsule := filepath.Join(dir, "capsule")
	ds := filepath.Join(dir, "cases.jsonl")
	if err := firstErr(h.makeCapsule(capsule, srv.url, h.pathDriver()), makeDataset(ds, n)); err != nil {
		return nil, err
	}
	for _, path := range h.paths {
		if _, err := h.evalRun(ctx, "warm-"+path, capsule, ds, n, 64, false, pathFlags(path)...); err != nil {
			return nil, err
		}
	}
	out := map[string][]scalingResult{}
	for _, w := range sz.ScalingWorkers {
		ideal := math.Ceil(float64(n)/float64(w)) * float64(sz.Turns) * sz.Delay.Seconds()
		res := map[string]*scalingResult{}
		for _, path := range h.paths {
			res[path] = &scalingResult{Path: path, Workers: w, Cases: n, IdealS: ideal}
		}
		repeat := sz.Repeat
		if w == 1 && repeat > 1 {
			repeat = 1 // the sequential run takes cases*turns*delay; once is enough to see it
		}
		for range repeat {
			for _, path := range h.paths {
				if err := h.scalingRun(ctx, srv, capsule, ds, sz, res[path]); err != nil {
					return nil, err
				}
			}
		}
		for _, path := range h.paths {
			r := res[path]
			r.Efficiency = medianOf(r.Runs, func(c childRun) float64 { return r.IdealS / c.RunWallS })
			r.ProcessEfficiency = medianOf(r.Runs, func(c childRun) float64 { return r.IdealS / c.WallS })
			out[path] = append(out[path], *r)
		}
	}
	return out, nil
}

// scalingRun is one run of res's point on res's path, added to res.
func (h *harness) scalingRun(ctx context.Context, srv *modelServer, capsule, ds string, sz sizes, res *scalingResult) error {
	n, w := res.Cases, res.Workers
	srv.resetStats()
	r, err := h.evalRun(ctx, "scaling-"+res.Path, capsule, ds, n, w, false,
		append(pathFlags(res.Path), "--max-connections", fmt.Sprint(max(sz.MaxConnections, w)))...)
	if err != nil {
		return err
	}
	if want := int64(n * sz.Turns); srv.requests.Load() != want {
		return fmt.Errorf("%s path, %d workers: the model server got %d requests, want %d", res.Path, w, srv.requests.Load(), want)
	}
	if err := srv.checkPath(res.Path); err != nil {
		return fmt.Errorf("%d workers: %w", w, err)
	}
	res.PeakInflight = max(res.PeakInflight, srv.peak.Load())
	h.progress("scaling (%s): %d cases, %d workers: run wall %.2f s (ideal %.2f s, efficiency %.2f), process wall %.2f s, CPU %.2f ms/case, RSS %.0f MiB (load %.2f)",
		res.Path, n, w, r.RunWallS, res.IdealS, res.IdealS/r.RunWallS, r.WallS, 1000*r.CPUS/float64(n), r.MaxRSSMiB, r.Load1)
	res.Runs = append(res.Runs, r)
	return nil
}

// memoryResult is the peak resident memory of whole runs of one size: the
// median over the repeats (a run's peak depends on when the collector and
// the scavenger ran, so a single run is noisy).
type memoryResult struct {
	Cases     int        `json:"cases"`
	Workers   int        `json:"workers"`
	MaxRSSMiB float64    `json:"max_rss_mib"`
	Runs      []childRun `json:"runs"`
}

func (h *harness) memory(ctx context.Context, sz sizes) ([]memoryResult, error) {
	dir := filepath.Join(h.work, "memory")
	capsule := filepath.Join(dir, "capsule")
	if err := h.makeCapsule(capsule, "http://127.0.0.1:9", nil); err != nil {
		return nil, err
	}
	largest := 0
	for _, n := range sz.MemoryCases {
		largest = max(largest, n)
	}
	rec := filepath.Join(dir, "recordings")
	if err := makeRecordings(rec, largest); err != nil {
		return nil, err
	}
	var out []memoryResult
	w := runtime.NumCPU()
	for i, n := range sz.MemoryCases {
		ds := filepath.Join(dir, fmt.Sprintf("cases-%d.jsonl", n))
		if err := makeDataset(ds, n); err != nil {
			return nil, err
		}
		if i == 0 { // compile cache and lock
			if _, err := h.evalRun(ctx, "warm", capsule, ds, n, w, false, "--replay", rec); err != nil {
				return nil, err
			}
		}
		res := memoryResult{Cases: n, Workers: w}
		for range sz.Repeat {
			r, err := h.evalRun(ctx, "memory", capsule, ds, n, w, false, "--replay", rec)
			if err != nil {
				return nil, err
			}
			h.progress("memory: %d cases: peak RSS %.1f MiB (%.1f s, load %.2f)", n, r.MaxRSSMiB, r.WallS, r.Load1)
			res.Runs = append(res.Runs, r)
		}
		res.MaxRSSMiB = medianOf(res.Runs, func(r childRun) float64 { return r.MaxRSSMiB })
		out = append(out, res)
		_ = os.Remove(ds)
	}
	return out, nil
}

// parquetResult is the events.parquet write rate: rows fed over a channel
// to the events sink (reports.Sink, as the run feeds it) until the file is
// complete.
type parquetResult struct {
	Events       int       `json:"events"`
	EventsPerS   float64   `json:"events_per_s"`
	BytesPerRow  float64   `json:"file_bytes_per_row"`
	Runs         []float64 `json:"runs_events_per_s"`
	Load1        []float64 `json:"load1"`
	RowsPerGroup int       `json:"rows_per_group"`
}

func (h *harness) parquet(sz sizes) (*parquetResult, error) {
	rows := sampleEvents(sz.ParquetEvents)
	res := &parquetResult{Events: len(rows), RowsPerGroup: reports.EventsPerGroup}
	for i := range sz.Repeat {
		path := filepath.Join(h.work, fmt.Sprintf("events-%d.parquet", i))
		res.Load1 = append(res.Load1, load1())
		start := time.Now()
		sink, err := reports.NewSink[reports.EventRow](path, reports.EventsLayout())
		if err != nil {
			return nil, err
		}
		ch := make(chan reports.EventRow, 1024)
		go func() {
			for _, r := range rows {
				ch <- r
			}
			close(ch)
		}()
		if err := sink.Run(context.Background(), ch); err != nil {
			return nil, err
		}
		rate := float64(len(rows)) / time.Since(start).Seconds()
		res.Runs = append(res.Runs, rate)
		if fi, err := os.Stat(path); err == nil {
			res.BytesPerRow = float64(fi.Size()) / float64(len(rows))
		}
		_ = os.Remove(path)
		h.progress("parquet: %d events: %.0f events/s (load %.2f)", len(rows), rate, res.Load1[i])
	}
	s := append([]float64(nil), res.Runs...)
	sort.Float64s(s)
	res.EventsPerS = median(s)
	return res, nil
}

// sampleEvents makes n event rows shaped as a trivial case's: six events
// per case, each with its verbatim trace line.
func sampleEvents(n int) []reports.EventRow {
	types := []string{"session_start", "inference", "tool_call", "tool_result", "inference", "session_end"}
	tool := "ok"
	rows := make([]reports.EventRow, n)
	t0 := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	for i := range rows {
		c := i / len(types)
		seq := int32(i % len(types))
		turn := int32(seq/3 + 1)
		typ := types[seq]
		r := reports.EventRow{RunID: "run_0193f1e2a7b84c5d9e0f1a2b3c4d5e6f", CaseID: fmt.Sprintf("c%06d", c), Epoch: 1,
			SessionID: fmt.Sprintf("ses_0193f1e2a7b84c5d9e0f%012x", c), Seq: seq,
			Timestamp: t0.Add(time.Duration(i) * time.Millisecond), EventType: typ, Turn: &turn, Attempt: 1,
			EventJSON: fmt.Sprintf(`{"ts":"%s","session_id":"ses_0193f1e2a7b84c5d9e0f%012x","event":%q,"turn":%d,"data":{"model":"bench-model","input_tokens":100,"output_tokens":10,"latency_ms":%d}}`,
				t0.Add(time.Duration(i)*time.Millisecond).Format(time.RFC3339Nano), c, typ, turn, i%50)}
		if typ == "tool_call" || typ == "tool_result" {
			r.ToolName = &tool
		}
		rows[i] = r
	}
	return rows
}

func (h *harness) progress(format string, args ...any) {
	fmt.Fprintf(h.log, time.Now().UTC().Format("15:04:05")+" "+format+"\n", args...)
}

func medianOf(runs []childRun, f func(childRun) float64) float64 {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = f(r)
	}
	return median(v)
}

// medianRun is the run whose f is the median (the lower one of an even
// count).
func medianRun(runs []childRun, f func(childRun) float64) childRun {
	s := append([]childRun(nil), runs...)
	sort.Slice(s, func(i, j int) bool { return f(s[i]) < f(s[j]) })
	return s[(len(s)-1)/2]
}

func uniq(v ...int) []int {
	var out []int
	seen := map[int]bool{}
	for _, x := range v {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
