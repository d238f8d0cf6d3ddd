package main

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// waveStat is when one wave of requests reached the model server: the
// first, the 10th, 50th and 90th percentile and the last, in milliseconds
// from the run's first request. A wave is a run of as many requests as
// there are workers, in arrival order: with every worker waiting on the
// model, the requests of one round.
type waveStat struct {
	Wave    int     `json:"wave"` // 1-based
	FirstMS float64 `json:"first_ms"`
	P10MS   float64 `json:"p10_ms"`
	P50MS   float64 `json:"p50_ms"`
	P90MS   float64 `json:"p90_ms"`
	LastMS  float64 `json:"last_ms"`
}

// waves splits arrivals into waves of perWave requests (the last may be
// shorter). It shows how a run's start-up spreads its first requests, and
// how each wave's answers spread the next wave's (BENCHMARKS.md, issue
// 19, session 8).
func waves(arrivals []time.Time, perWave int) []waveStat {
	if len(arrivals) == 0 || perWave < 1 {
		return nil
	}
	ts := slices.SortedFunc(slices.Values(arrivals), func(a, b time.Time) int { return a.Compare(b) })
	ms := func(t time.Time) float64 { return float64(t.Sub(ts[0]).Microseconds()) / 1000 }
	var out []waveStat
	for start := 0; start < len(ts); start += perWave {
		w := ts[start:min(start+perWave, len(ts))]
		at := func(q float64) float64 { return ms(w[int(q*float64(len(w)-1))]) }
		out = append(out, waveStat{Wave: len(out) + 1, FirstMS: ms(w[0]), P10MS: at(0.1), P50MS: at(0.5), P90MS: at(0.9), LastMS: ms(w[len(w)-1])})
	}
	return out
}

// startAndEnd is how long the child took from its start to the first
// request, and from the last answer (the last request's arrival and the
// model's latency) to its exit.
func startAndEnd(r childRun, arrivals []time.Time, delay time.Duration) (firstMS, afterMS float64) {
	if len(arrivals) == 0 {
		return 0, 0
	}
	first, last := slices.MinFunc(arrivals, time.Time.Compare), slices.MaxFunc(arrivals, time.Time.Compare)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return ms(first.Sub(r.started)), ms(r.exited.Sub(last.Add(delay)))
}

// String is the wave's five figures, "first/p10/median/p90/last".
func (w waveStat) String() string {
	return fmt.Sprintf("%.0f/%.0f/%.0f/%.0f/%.0f", w.FirstMS, w.P10MS, w.P50MS, w.P90MS, w.LastMS)
}

// wavesTable prints, for each waiting point, the first, second and last
// waves of its median run.
func wavesTable(w io.Writer, rs []waitResult) {
	fmt.Fprintln(w, "workers\tcases\tdelay\tturns\twaves\tstart to first\tfirst wave\tsecond wave\tlast wave\tlast answer to exit\t")
	for _, x := range rs {
		mr := medianRun(x.Runs, func(c childRun) float64 { return c.RunWallS })
		if len(mr.Waves) == 0 {
			continue
		}
		second := "-"
		if len(mr.Waves) > 2 {
			second = mr.Waves[1].String()
		}
		fmt.Fprintf(w, "%d\t%d\t%s\t%d\t%d\t%.0f\t%s\t%s\t%s\t%.0f\t\n", x.Workers, x.Cases, x.Delay, x.Turns, len(mr.Waves),
			mr.FirstRequestMS, mr.Waves[0], second, mr.Waves[len(mr.Waves)-1], mr.AfterLastAnswerMS)
	}
}
