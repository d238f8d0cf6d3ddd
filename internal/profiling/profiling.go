// Package profiling writes the profiles of a run asked for by murmur-eval's
// hidden --cpuprofile, --memprofile and --exectrace flags (BENCHMARKS.md).
package profiling

import (
	"errors"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Files are the profiles to write, each a path or "" for none: a CPU
// profile and an execution trace of the run, a heap profile when its last
// case has finished. They change nothing else about the run.
type Files struct {
	CPU, Mem, Exec string
}

// Start begins the CPU profile and the trace; stop ends them. heap writes the heap profile
// (in-use and allocated memory, `go tool pprof -sample_index=...`); the run
// calls it when the last case has finished, before the report files, so
// what every case left behind is still live in it.
func (p Files) Start() (stop func(), heap func() error, err error) {
	stop = func() {}
	if p.CPU != "" {
		f, err := os.Create(p.CPU)
		if err != nil {
			return nil, nil, errcode.Wrap(errcode.IO, err, "--cpuprofile %s", p.CPU)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			_ = f.Close()
			return nil, nil, errcode.Wrap(errcode.IO, err, "--cpuprofile %s", p.CPU)
		}
		stop = func() { pprof.StopCPUProfile(); _ = f.Close() }
	}
	if p.Exec != "" {
		f, err := os.Create(p.Exec)
		if err != nil {
			stop()
			return nil, nil, errcode.Wrap(errcode.IO, err, "--exectrace %s", p.Exec)
		}
		if err := trace.Start(f); err != nil {
			_ = f.Close()
			stop()
			return nil, nil, errcode.Wrap(errcode.IO, err, "--exectrace %s", p.Exec)
		}
		stopCPU := stop
		stop = func() { trace.Stop(); _ = f.Close(); stopCPU() }
	}
	heap = func() error {
		if p.Mem == "" {
			return nil
		}
		f, err := os.Create(p.Mem)
		if err != nil {
			return errcode.Wrap(errcode.IO, err, "--memprofile %s", p.Mem)
		}
		runtime.GC()
		if err := errors.Join(pprof.Lookup("heap").WriteTo(f, 0), f.Close()); err != nil {
			return errcode.Wrap(errcode.IO, err, "--memprofile %s", p.Mem)
		}
		return nil
	}
	return stop, heap, nil
}
