package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"
)

// report is everything one harness run measured, as written to JSON.
// scaling and waiting are the built-in path's, as they were before the
// driver path was measured (their readers keep working);
// scaling_driver and waiting_driver the same points on the driver path,
// and side_by_side the two paired.
type report struct {
	Machine  machineInfo    `json:"machine"`
	Size     sizes          `json:"size"`
	WorkDir  string         `json:"work_dir"` // where the run folders were: its file system is in the figures
	Started  time.Time      `json:"started"`
	Finished time.Time      `json:"finished"`
	Paths    []string       `json:"paths"`            // the paths the scaling and waiting suites measured
	Driver   *benchDriver   `json:"driver,omitempty"` // the driver path's component
	Overhead *overheadSuite `json:"overhead,omitempty"`
	// Scaling and Waiting are the built-in path's (--driver builtin).
	Scaling       []scalingResult `json:"scaling,omitempty"`
	ScalingDriver []scalingResult `json:"scaling_driver,omitempty"`
	Waiting       []waitResult    `json:"waiting,omitempty"`
	WaitingDriver []waitResult    `json:"waiting_driver,omitempty"`
	SideBySide    []sideBySide    `json:"side_by_side,omitempty"`
	Memory        []memoryResult  `json:"memory,omitempty"`
	Parquet       *parquetResult  `json:"parquet,omitempty"`
	Targets       []target        `json:"targets"`
}

// target is one of issue 8's targets and whether this run met it. A
// smoke-size run judges too, but its sizes are not the targets' sizes.
type target struct {
	Name     string  `json:"name"`
	Want     string  `json:"want"`
	Got      float64 `json:"got"`
	Unit     string  `json:"unit"`
	Met      bool    `json:"met"`
	Headroom string  `json:"by"` // how far over or under the bound
}

func (r *report) judge() []target {
	var ts []target
	atLeast := func(name, unit string, got, bound float64) {
		ts = append(ts, target{Name: name, Want: fmt.Sprintf(">= %g", bound), Got: got, Unit: unit, Met: got >= bound,
			Headroom: fmt.Sprintf("%+.0f%%", (got/bound-1)*100)})
	}
	atMost := func(name, unit string, got, bound float64) {
		ts = append(ts, target{Name: name, Want: fmt.Sprintf("<= %g", bound), Got: got, Unit: unit, Met: got <= bound,
			Headroom: fmt.Sprintf("%+.0f%%", (got/bound-1)*100)})
	}
	if r.Overhead != nil {
		for _, o := range r.Overhead.Results {
			if o.Workers == runtime.NumCPU() {
				atLeast(fmt.Sprintf("trivial cases/s at %d workers", o.Workers), "cases/s", o.CasesPerS, 500)
				atMost(fmt.Sprintf("CPU per case at %d workers", o.Workers), "ms", o.CPUPerCaseMS, 2)
			}
		}
	}
	for _, s := range r.Scaling {
		switch s.Workers {
		case 64:
			atLeast("scaling efficiency at 64 workers", "", s.Efficiency, 0.9)
		case 256:
			atLeast("scaling efficiency at 256 workers", "", s.Efficiency, 0.8)
		}
	}
	waitingTargets(r.Waiting, atLeast, atMost)
	driverTargets(r.Driver, r.WaitingDriver, atLeast, atMost)
	if len(r.Memory) >= 2 {
		lo, hi := r.Memory[0], r.Memory[len(r.Memory)-1]
		// Issue 19 asks for 1.2 at 100,000 cases against 1,000
		// (-memory-cases 1000,100000); the default sizes (20,000) keep
		// make bench short and hold the harness's older 1.5.
		limit := 1.5
		if hi.Cases >= 100_000 {
			limit = 1.2
		}
		atMost(fmt.Sprintf("peak RSS %d cases / %d cases", hi.Cases, lo.Cases), "x", hi.MaxRSSMiB/lo.MaxRSSMiB, limit)
	}
	if r.Parquet != nil {
		atLeast("events/s into events.parquet", "events/s", r.Parquet.EventsPerS, 500_000)
	}
	return ts
}

func (r *report) print(w io.Writer) {
	m := r.Machine
	fmt.Fprintf(w, "\nmurmur-bench (%s) on %s, %d CPUs, %s, kernel %s; run folders in %s\n", r.Size.Name, m.CPU, m.CPUs, m.Go, m.Kernel, r.WorkDir)
	var tw *tabwriter.Writer
	section := func(title string) {
		if tw != nil {
			_ = tw.Flush() // print's writer is the terminal: nobody to tell
		}
		fmt.Fprintln(w, "\n"+title)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	}
	defer func() { _ = tw.Flush() }()
	if o := r.Overhead; o != nil {
		section(fmt.Sprintf("overhead (replay, 2 turns, 1 WASM call; fixed cost of a run: %.0f ms wall, %.0f ms CPU)", o.Fixed.WallS*1000, o.Fixed.CPUS*1000))
		fmt.Fprintln(tw, "workers\tcases\tcases/s\trun cases/s\tCPU ms/case\tuser\tsystem\tmarginal\tstage\tlaunch\tloop\treport\tcase ms\tload\t")
		for _, x := range o.Results {
			fmt.Fprintf(tw, "%d\t%d\t%.0f\t%.0f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%s\t\n", x.Workers, x.Cases, x.CasesPerS, x.RunCasesPerS,
				x.CPUPerCaseMS, x.UserPerCaseMS, x.SysPerCaseMS, x.MarginalCPUPerCaseMS, x.StageMS["stage"], x.StageMS["launch"], x.StageMS["loop"], x.StageMS["report"], x.StageMS["case"], loads(x.Runs))
		}
	}
	for _, p := range r.latencyPaths() {
		if len(p.scaling) > 0 {
			section(fmt.Sprintf("latency-bound, %s (OpenAI server, %s per request, %d turns)", p.title, r.Size.Delay, r.Size.Turns))
			scalingTable(tw, p.scaling)
		}
	}
	for _, p := range r.latencyPaths() {
		if len(p.waiting) > 0 {
			section("waiting sessions, " + p.title + " (OpenAI server; CPU per case of the whole process; the ratio to the same delay and turns at 64 workers)")
			waitingTable(tw, p.waiting)
			section("waiting sessions, " + p.title + ": when the model server got the requests (ms from the first; first / p10 / median / p90 / last; the median run)")
			wavesTable(tw, p.waiting)
		}
	}
	if len(r.SideBySide) > 0 {
		section(fmt.Sprintf("both paths side by side (driver path: %s; medians; x = driver / built-in)", r.Driver.Label))
		sideBySideTable(tw, r.SideBySide)
	}
	if len(r.Memory) > 0 {
		section("memory (replay, whole runs)")
		fmt.Fprintln(tw, "cases\tworkers\tpeak RSS MiB (median)\truns MiB\twall s\tload\t")
		for _, x := range r.Memory {
			rss := make([]float64, len(x.Runs))
			for i, run := range x.Runs {
				rss[i] = run.MaxRSSMiB
			}
			fmt.Fprintf(tw, "%d\t%d\t%.1f\t%s\t%.1f\t%s\t\n", x.Cases, x.Workers, x.MaxRSSMiB, floats(rss),
				medianOf(x.Runs, func(c childRun) float64 { return c.WallS }), loads(x.Runs))
		}
	}
	if p := r.Parquet; p != nil {
		section("events.parquet (reports.Sink fed over a channel)")
		fmt.Fprintln(tw, "events\tevents/s\tbytes/row\tload\t")
		fmt.Fprintf(tw, "%d\t%.0f\t%.1f\t%s\t\n", p.Events, p.EventsPerS, p.BytesPerRow, floats(p.Load1))
	}
	section("targets")
	fmt.Fprintln(tw, "target\twant\tgot\tby\tmet\t")
	for _, t := range r.Targets {
		fmt.Fprintf(tw, "%s\t%s %s\t%.3g\t%s\t%v\t\n", t.Name, t.Want, t.Unit, t.Got, t.Headroom, t.Met)
	}
	if r.Size.Name != "full" {
		_ = tw.Flush()
		fmt.Fprintln(w, "(reduced size: its figures say nothing about the targets)")
	}
}

// latencyPath is one path's results of the latency suites, for print.
type latencyPath struct {
	title   string
	scaling []scalingResult
	waiting []waitResult
}

func (r *report) latencyPaths() []latencyPath {
	driver := "driver path"
	if r.Driver != nil {
		driver += " (" + r.Driver.Label + ")"
	}
	return []latencyPath{
		{"built-in path (--driver builtin)", r.Scaling, r.Waiting},
		{driver, r.ScalingDriver, r.WaitingDriver},
	}
}

func scalingTable(tw io.Writer, rs []scalingResult) {
	fmt.Fprintln(tw, "workers\tcases\tideal s\trun wall s\tefficiency\tprocess wall s\tprocess eff.\tpeak in flight\tload\t")
	for _, s := range rs {
		mr := medianRun(s.Runs, func(c childRun) float64 { return c.RunWallS })
		fmt.Fprintf(tw, "%d\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%d\t%s\t\n", s.Workers, s.Cases, s.IdealS, mr.RunWallS, s.Efficiency, mr.WallS, s.ProcessEfficiency, s.PeakInflight, loads(s.Runs))
	}
}

func waitingTable(tw io.Writer, rs []waitResult) {
	fmt.Fprintln(tw, "workers\tcases\tdelay\tturns\tideal s\trun wall s\tefficiency\twall/CPU floor\tCPU ms/case\tuser\tsystem\tvs 64\tpeak RSS MiB\tpeak in flight\tload\t")
	for _, x := range rs {
		ratio := "-"
		for _, b := range rs {
			if b.Workers == 64 && b.Delay == x.Delay && b.Turns == x.Turns && b.CPUPerCaseMS > 0 {
				ratio = fmt.Sprintf("%.2f", x.CPUPerCaseMS/b.CPUPerCaseMS)
			}
		}
		mr := medianRun(x.Runs, func(c childRun) float64 { return c.RunWallS })
		fmt.Fprintf(tw, "%d\t%d\t%s\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.3f\t%.3f\t%.3f\t%s\t%.1f\t%d\t%s\t\n", x.Workers, x.Cases, x.Delay, x.Turns, x.IdealS, mr.RunWallS,
			x.Efficiency, x.FloorRatio, x.CPUPerCaseMS, x.UserPerCaseMS, x.SysPerCaseMS, ratio, x.MaxRSSMiB, x.PeakInflight, loads(x.Runs))
	}
}

func loads(runs []childRun) string {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = r.Load1
	}
	return floats(v)
}

func floats(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(s, "/")
}
