// Command murmur-bench measures murmur-eval's own cost, running the real
// binary as a child process on datasets it generates: per-case overhead
// with a replayed model and a minimal WASM tool, scaling and waiting
// sessions against a local model server with a fixed latency, on both
// paths a model turn can take (the capsule's driver component, murmur's
// default, and the built-in provider, side by side: paths.go), peak
// memory as the dataset grows, and the events.parquet write rate. It
// prints a table and writes the figures as JSON. `make bench` runs it at full size, `make bench-smoke` (and
// `make test`) at a reduced size that only proves it works. See
// BENCHMARKS.md.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"
)

// sizes are the dimensions of one harness run.
type sizes struct {
	Name           string        `json:"name"`
	OverheadCases  int           `json:"overhead_cases"`
	Repeat         int           `json:"repeat"` // runs per figure; the median is reported
	ScalingCases   int           `json:"scaling_cases"`
	ScalingWorkers []int         `json:"scaling_workers"`
	Delay          time.Duration `json:"delay_ns"`
	Turns          int           `json:"turns"`
	MemoryCases    []int         `json:"memory_cases"`
	ParquetEvents  int           `json:"parquet_events"`
	MaxConnections int           `json:"max_connections"`
	// Waiting are the waiting suite's points (waiting.go).
	Waiting []waitPoint `json:"waiting"`
}

var presets = map[string]sizes{ //nolint:gochecknoglobals // read-only table of the -size presets
	"full": {Name: "full", OverheadCases: 2000, Repeat: 3, ScalingCases: 512, ScalingWorkers: []int{1, 8, 64, 256},
		Delay: 50 * time.Millisecond, Turns: 3, MemoryCases: []int{1000, 20000}, ParquetEvents: 2_000_000, MaxConnections: 1024,
		Waiting: []waitPoint{
			{2048, 64, 50 * time.Millisecond, 1}, {4096, 256, 50 * time.Millisecond, 1}, {4096, 1024, 50 * time.Millisecond, 1},
			{8192, 1024, time.Second, 1}, // issue 19's "done when": 8,192 cases within 1.1x of the latency bound
			{1024, 64, 50 * time.Millisecond, 3}, {2048, 256, 50 * time.Millisecond, 3}, {2048, 1024, 50 * time.Millisecond, 3},
		}},
	"smoke": {Name: "smoke", OverheadCases: 40, Repeat: 1, ScalingCases: 16, ScalingWorkers: []int{1, 8},
		Delay: 10 * time.Millisecond, Turns: 3, MemoryCases: []int{20, 80}, ParquetEvents: 50_000, MaxConnections: 64,
		Waiting: []waitPoint{{16, 8, 10 * time.Millisecond, 1}, {16, 8, 10 * time.Millisecond, 3}}},
}

// harness is one benchmark session: the binary under test and a work
// folder for capsules, datasets and runs.
type harness struct {
	bin  string
	work string
	seq  int
	// profileDir, when set, gets a CPU and a heap profile of every run.
	profileDir string
	log        io.Writer
	// paths are the paths the scaling and waiting suites measure, in the
	// order each point runs them; driver is the driver path's component.
	paths  []string
	driver *benchDriver
}

// pathDriver is the driver the latency suites' capsules install: h.driver
// when the driver path is measured, none otherwise (as before it was).
func (h *harness) pathDriver() *benchDriver {
	for _, p := range h.paths {
		if p == pathDriver {
			return h.driver
		}
	}
	return nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], map[string]string{"MURMUR_BENCH_DRIVER": os.Getenv("MURMUR_BENCH_DRIVER")}, os.Stdout, os.Stderr))
}

// run is murmur-bench with args and the environment variables it reads
// (env: MURMUR_BENCH_DRIVER, the default of -driver).
func run(ctx context.Context, args []string, env map[string]string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("murmur-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	size := fs.String("size", "full", "full or smoke (a reduced size that only proves the harness works)")
	jsonOut := fs.String("json", "", "write the figures here as JSON (default out/bench-<size>.json)")
	bin := fs.String("bin", "", "murmur-eval binary to measure (default: go build ./cmd/murmur-eval into a temporary folder)")
	keep := fs.Bool("keep", false, "keep the work folder (capsules, datasets, run folders)")
	suites := fs.String("suites", "overhead,scaling,waiting,memory,parquet", "suites to run")
	repeat := fs.Int("repeat", 0, "runs per figure (default: the size's)")
	profile := fs.String("profile", "", "write a CPU and a heap profile of every run of murmur-eval into this folder (go tool pprof), and a CPU profile of murmur-bench itself (its model server)")
	workdir := fs.String("workdir", "", "make the work folder (capsules, datasets, run folders) in this folder (default $TMPDIR or /tmp); /dev/shm takes the disk out of the figures")
	scalingWorkers := fs.String("scaling-workers", "", "comma-separated worker counts of the scaling suite (default: the size's)")
	memCases := fs.String("memory-cases", "", "comma-separated case counts of the memory suite (default: the size's)")
	cases := fs.Int("cases", 0, "cases of the overhead suite (default: the size's)")
	waitingPoints := fs.String("waiting", "", "comma-separated points of the waiting suite as cases/workers/latency/turns, such as 4096/256/50ms/1 (default: the size's)")
	driver := fs.String("driver", env["MURMUR_BENCH_DRIVER"], "the driver component of the driver path: an OpenAI-format driver such as murmur's murmur-driver-openai.wasm, installed in the bench capsule as murmur-driver-openai (default: the tests' relay fixture, "+relayFixture+", a lower bound) (env MURMUR_BENCH_DRIVER)")
	pathList := fs.String("paths", pathBuiltin+","+pathDriver, "who answers the model turns of the scaling and waiting suites: builtin (--driver builtin), driver (the capsule's driver component, murmur's default) or both, side by side")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	suiteList := strings.Split(*suites, ",")
	paths, err := measuredPaths(*pathList, suiteList)
	if err != nil {
		fmt.Fprintln(stderr, "murmur-bench: -paths", err)
		return 2
	}
	sz, err := chooseSizes(*size, *repeat, *cases, *memCases, *scalingWorkers, *waitingPoints)
	if err != nil {
		fmt.Fprintln(stderr, "murmur-bench:", err)
		return 2
	}
	if *jsonOut == "" {
		*jsonOut = filepath.Join("out", "bench-"+sz.Name+".json")
	}
	work, err := os.MkdirTemp(*workdir, "murmur-bench-")
	if err != nil {
		fmt.Fprintln(stderr, "murmur-bench:", err)
		return 1
	}
	h := &harness{bin: *bin, work: work, log: stderr, paths: paths}
	if !*keep {
		defer os.RemoveAll(work)
	} else {
		fmt.Fprintln(stderr, "murmur-bench: work folder", work)
	}
	if err := h.prepare(*profile, *driver); err != nil {
		fmt.Fprintln(stderr, "murmur-bench:", err)
		return 1
	}
	if h.profileDir != "" {
		stopProfile, err := profileSelf(h.profileDir)
		if err != nil {
			fmt.Fprintln(stderr, "murmur-bench:", err)
			return 1
		}
		defer stopProfile()
	}
	rep := &report{Machine: machine(), Size: sz, Started: time.Now().UTC(), WorkDir: work, Paths: h.paths, Driver: h.pathDriver()}
	if err := h.runSuites(ctx, rep, suiteList); err != nil {
		fmt.Fprintln(stderr, "murmur-bench:", err)
		return 1
	}
	rep.Finished = time.Now().UTC()
	rep.SideBySide = sideBySideRows(rep)
	rep.Targets = rep.judge()
	rep.print(stdout)
	if err := writeFigures(rep, *jsonOut); err != nil {
		fmt.Fprintln(stderr, "murmur-bench:", err)
		return 1
	}
	fmt.Fprintln(stdout, "figures written to", *jsonOut)
	return 0
}

// measuredPaths is -paths read, or none when no suite of suiteList
// reaches the model server (scaling, waiting): then no driver is read
// either.
func measuredPaths(pathList string, suiteList []string) ([]string, error) {
	paths, err := parsePaths(pathList)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(suiteList, func(s string) bool { s = strings.TrimSpace(s); return s == "scaling" || s == "waiting" }) {
		return nil, nil
	}
	return paths, nil
}

// chooseSizes is the preset name with the flags that override it (each
// when set).
func chooseSizes(name string, repeat, cases int, memCases, scalingWorkers, waiting string) (sizes, error) {
	sz, ok := presets[name]
	if !ok {
		return sz, fmt.Errorf("-size %q: want full or smoke", name)
	}
	if repeat > 0 {
		sz.Repeat = repeat
	}
	if cases > 0 {
		sz.OverheadCases = cases
	}
	err := overrideSizes(&sz, memCases, scalingWorkers, waiting)
	return sz, err
}

// profileSelf writes a CPU profile of murmur-bench itself into dir until
// the returned function is called: the model server shares the machine's
// cores with the runs it answers, so its cost is part of their wall time.
func profileSelf(dir string) (func(), error) {
	f, err := os.Create(filepath.Join(dir, "murmur-bench.cpu.pprof"))
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}, nil
}

// prepare makes the profile folder (when profile is set), reads the
// driver path's component (driverFile, or the relay fixture) when that
// path is measured and, without -bin, builds murmur-eval into the work
// folder.
func (h *harness) prepare(profile, driverFile string) error {
	if profile != "" {
		dir, err := filepath.Abs(profile)
		if err == nil {
			err = os.MkdirAll(dir, 0o755)
		}
		if err != nil {
			return err
		}
		h.profileDir = dir
	}
	if slices.Contains(h.paths, pathDriver) {
		d, err := loadDriver(driverFile, ".")
		if err != nil {
			return err
		}
		h.driver = d
		fmt.Fprintf(h.log, "murmur-bench: driver path: %s, %s (%d bytes)\n", d.Label, d.File, d.Bytes)
	}
	if h.bin != "" {
		return nil
	}
	h.bin = filepath.Join(h.work, "murmur-eval")
	fmt.Fprintln(h.log, "murmur-bench: building murmur-eval")
	build := exec.Command("go", "build", "-o", h.bin, "./cmd/murmur-eval")
	build.Stdout, build.Stderr = h.log, h.log
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build ./cmd/murmur-eval (run from the module root): %w", err)
	}
	return nil
}

// overrideSizes applies the -memory-cases, -scaling-workers and -waiting
// flags (each when set) to sz.
func overrideSizes(sz *sizes, memCases, scalingWorkers, waiting string) error {
	for _, l := range []struct {
		flag, value string
		dst         *[]int
	}{{"-memory-cases", memCases, &sz.MemoryCases}, {"-scaling-workers", scalingWorkers, &sz.ScalingWorkers}} {
		if l.value == "" {
			continue
		}
		counts, ok := parseCounts(l.value)
		if !ok {
			return fmt.Errorf("%s %q: want positive counts such as 1,8,64", l.flag, l.value)
		}
		*l.dst = counts
	}
	if waiting != "" {
		points, err := parseWaitPoints(waiting)
		if err != nil {
			return fmt.Errorf("-waiting %q: %w", waiting, err)
		}
		sz.Waiting = points
	}
	return nil
}

// parseCounts reads a comma-separated list of positive counts.
func parseCounts(value string) ([]int, bool) {
	var counts []int
	for _, f := range strings.Split(value, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, false
		}
		counts = append(counts, n)
	}
	return counts, true
}

// runSuites runs the named suites in order into rep, at rep.Size; the
// first that fails stops the run, its error naming it.
func (h *harness) runSuites(ctx context.Context, rep *report, suites []string) error {
	sz := rep.Size
	for _, s := range suites {
		var err error
		switch strings.TrimSpace(s) {
		case "overhead":
			rep.Overhead, err = h.overhead(ctx, sz)
		case "scaling":
			var byPath map[string][]scalingResult
			byPath, err = h.scaling(ctx, sz)
			rep.Scaling, rep.ScalingDriver = byPath[pathBuiltin], byPath[pathDriver]
		case "waiting":
			var byPath map[string][]waitResult
			byPath, err = h.waiting(ctx, sz)
			rep.Waiting, rep.WaitingDriver = byPath[pathBuiltin], byPath[pathDriver]
		case "memory":
			rep.Memory, err = h.memory(ctx, sz)
		case "parquet":
			rep.Parquet, err = h.parquet(sz)
		default:
			err = fmt.Errorf("unknown suite %q", s)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// writeFigures writes rep as indented JSON to path, making its folder.
// One err for every step: a failed write of the figures must fail the
// run (a shadowed err here once hid it).
func writeFigures(rep *report, path string) error {
	raw, err := json.MarshalIndent(rep, "", "  ")
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o755)
	}
	if err == nil {
		err = os.WriteFile(path, append(raw, '\n'), 0o644)
	}
	return err
}

// machineInfo is what the figures were taken on.
type machineInfo struct {
	CPU    string `json:"cpu"`
	CPUs   int    `json:"cpus"`
	Go     string `json:"go"`
	Kernel string `json:"kernel"`
}

func machine() machineInfo {
	m := machineInfo{CPUs: runtime.NumCPU(), Go: runtime.Version()}
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if raw, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(raw))
	}
	return m
}
