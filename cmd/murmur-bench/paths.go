package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// The two paths a model turn can take. A murmur capsule declares its
// driver, so a murmur user's run takes the driver path unless it asks for
// the built-in provider: the scaling and waiting suites measure both, on
// the same capsule (its driver installed) and the same model server,
// alternating run by run so that the machine's load falls on both alike.
const (
	pathBuiltin = "builtin" // --driver builtin: murmur-eval's built-in provider
	pathDriver  = "driver"  // no --driver flag: the capsule's driver component, a fresh instance per turn
)

// pathFlags are the murmur-eval flags that choose path.
func pathFlags(path string) []string {
	if path == pathBuiltin {
		return []string{"--driver", "builtin"}
	}
	return nil
}

// parsePaths reads -paths: builtin, driver or both, comma-separated, in
// the order each point runs them.
func parsePaths(value string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(value, ",") {
		p := strings.TrimSpace(f)
		if p != pathBuiltin && p != pathDriver {
			return nil, fmt.Errorf("%q: want builtin, driver or builtin,driver", f)
		}
		for _, seen := range out {
			if seen == p {
				return nil, fmt.Errorf("%q given twice", p)
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// pathFigures are one path's medians at one point.
type pathFigures struct {
	RunWallS float64 `json:"run_wall_s"`
	// OfBound is the latency bound (ideal_s) over the run wall: 1 when the
	// run took no longer than waiting for the model.
	OfBound      float64 `json:"of_latency_bound"`
	CPUPerCaseMS float64 `json:"cpu_per_case_ms"`
	MaxRSSMiB    float64 `json:"max_rss_mib"`
	Runs         int     `json:"runs"`
}

// sideBySide is one point of the scaling or waiting suite measured on both
// paths, and the driver path's figures over the built-in path's.
type sideBySide struct {
	Suite   string        `json:"suite"`
	Workers int           `json:"workers"`
	Cases   int           `json:"cases"`
	Delay   time.Duration `json:"delay_ns"`
	Turns   int           `json:"turns"`
	IdealS  float64       `json:"ideal_s"`
	Builtin pathFigures   `json:"builtin"`
	Driver  pathFigures   `json:"driver"`
	WallX   float64       `json:"wall_ratio"` // driver / built-in
	CPUX    float64       `json:"cpu_ratio"`
	RSSX    float64       `json:"rss_ratio"`
}

// figuresOf takes the medians of runs of cases cases whose latency bound
// is idealS.
func figuresOf(runs []childRun, cases int, idealS float64) pathFigures {
	if len(runs) == 0 {
		return pathFigures{}
	}
	return pathFigures{
		RunWallS:     medianOf(runs, func(r childRun) float64 { return r.RunWallS }),
		OfBound:      medianOf(runs, func(r childRun) float64 { return idealS / r.RunWallS }),
		CPUPerCaseMS: medianOf(runs, func(r childRun) float64 { return 1000 * r.CPUS / float64(cases) }),
		MaxRSSMiB:    medianOf(runs, func(r childRun) float64 { return r.MaxRSSMiB }),
		Runs:         len(runs),
	}
}

// compare pairs a point's figures on the two paths.
func compare(x sideBySide, builtin, driver []childRun) sideBySide {
	x.Builtin = figuresOf(builtin, x.Cases, x.IdealS)
	x.Driver = figuresOf(driver, x.Cases, x.IdealS)
	ratio := func(d, b float64) float64 {
		if b <= 0 {
			return 0
		}
		return d / b
	}
	x.WallX = ratio(x.Driver.RunWallS, x.Builtin.RunWallS)
	x.CPUX = ratio(x.Driver.CPUPerCaseMS, x.Builtin.CPUPerCaseMS)
	x.RSSX = ratio(x.Driver.MaxRSSMiB, x.Builtin.MaxRSSMiB)
	return x
}

// sideBySideRows pairs the points the scaling and waiting suites measured
// on both paths (the same points, in the same order: each suite runs every
// point on every path).
func sideBySideRows(r *report) []sideBySide {
	var out []sideBySide
	for i := range min(len(r.Scaling), len(r.ScalingDriver)) {
		b, d := r.Scaling[i], r.ScalingDriver[i]
		out = append(out, compare(sideBySide{Suite: "scaling", Workers: b.Workers, Cases: b.Cases,
			Delay: r.Size.Delay, Turns: r.Size.Turns, IdealS: b.IdealS}, b.Runs, d.Runs))
	}
	for i := range min(len(r.Waiting), len(r.WaitingDriver)) {
		b, d := r.Waiting[i], r.WaitingDriver[i]
		out = append(out, compare(sideBySide{Suite: "waiting", Workers: b.Workers, Cases: b.Cases,
			Delay: b.Delay, Turns: b.Turns, IdealS: b.IdealS}, b.Runs, d.Runs))
	}
	return out
}

// sideBySideTable prints rows, one a point: the latency bound, each path's
// run wall, its fraction of the bound, CPU per case and peak RSS, and the
// driver path's figures over the built-in's.
func sideBySideTable(w io.Writer, rows []sideBySide) {
	fmt.Fprintln(w, "suite\tworkers\tcases\tlatency\tturns\tbound s\t"+
		"built-in wall s\tof bound\tCPU ms/case\tRSS MiB\t"+
		"driver wall s\tof bound\tCPU ms/case\tRSS MiB\t"+
		"wall x\tCPU x\tRSS x\t")
	for _, x := range rows {
		fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%d\t%.2f\t%.2f\t%.2f\t%.3f\t%.1f\t%.2f\t%.2f\t%.3f\t%.1f\t%.2f\t%.2f\t%.2f\t\n",
			x.Suite, x.Workers, x.Cases, x.Delay, x.Turns, x.IdealS,
			x.Builtin.RunWallS, x.Builtin.OfBound, x.Builtin.CPUPerCaseMS, x.Builtin.MaxRSSMiB,
			x.Driver.RunWallS, x.Driver.OfBound, x.Driver.CPUPerCaseMS, x.Driver.MaxRSSMiB,
			x.WallX, x.CPUX, x.RSSX)
	}
}

// driverTargets are issue 38's targets for the driver path, judged on the
// waiting points measured there: at most 0.6 ms of CPU per single-turn
// case at 64, 256 and 1,024 workers; with 1 s of latency at least 0.9 of
// the latency bound (a run wall within 1.1x of it); and at most 512 MiB
// of peak RSS with 1,024 sessions in flight. The issue sets them for
// murmur's real driver: with the relay fixture (name relay-driver) they
// only bound what the harness around a driver costs.
func driverTargets(drv *benchDriver, rs []waitResult, atLeast, atMost func(name, unit string, got, bound float64)) {
	if drv == nil {
		return
	}
	for _, r := range rs {
		label := fmt.Sprintf("driver path (%s), %d workers, %s, %d turn(s)", drv.Name, r.Workers, r.Delay, r.Turns)
		if r.Turns == 1 && (r.Workers == 64 || r.Workers == 256 || r.Workers == 1024) {
			atMost("CPU per case, "+label, "ms", r.CPUPerCaseMS, 0.6)
		}
		if r.Delay >= time.Second {
			atLeast("fraction of the latency bound, "+label, "", r.Efficiency, 0.9)
			if r.Efficiency > 0 {
				atMost("run wall vs the latency bound, "+label, "x", 1/r.Efficiency, 1.1)
			}
		}
		if r.Workers >= 1024 {
			atMost("peak RSS, "+label, "MiB", r.MaxRSSMiB, 512)
		}
	}
}
