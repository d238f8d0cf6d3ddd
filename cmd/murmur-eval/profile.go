package main

import (
	"errors"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// profileOptions are the hidden --cpuprofile and --memprofile flags, for
// profiling a run with `go tool pprof` (BENCHMARKS.md); they change nothing
// else about the run.
type profileOptions struct {
	cpu, mem, exec string
}

func (p *profileOptions) register(fs *pflag.FlagSet) {
	fs.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile of the run to this file")
	fs.StringVar(&p.mem, "memprofile", "", "write a heap profile to this file when the last case has finished")
	fs.StringVar(&p.exec, "exectrace", "", "write a Go execution trace of the run to this file (go tool trace)")
	_ = fs.MarkHidden("cpuprofile")
	_ = fs.MarkHidden("memprofile")
	_ = fs.MarkHidden("exectrace")
}

// start begins the CPU profile; stop ends it. heap writes the heap profile
// (in-use and allocated memory, `go tool pprof -sample_index=...`); the run
// calls it when the last case has finished, before the report files, so
// what every case left behind is still live in it.
func (p profileOptions) start() (stop func(), heap func() error, err error) {
	stop = func() {}
	if p.cpu != "" {
		f, err := os.Create(p.cpu)
		if err != nil {
			return nil, nil, errcode.Wrap(errcode.IO, err, "--cpuprofile %s", p.cpu)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			_ = f.Close()
			return nil, nil, errcode.Wrap(errcode.IO, err, "--cpuprofile %s", p.cpu)
		}
		stop = func() { pprof.StopCPUProfile(); _ = f.Close() }
	}
	if p.exec != "" {
		f, err := os.Create(p.exec)
		if err != nil {
			stop()
			return nil, nil, errcode.Wrap(errcode.IO, err, "--exectrace %s", p.exec)
		}
		if err := trace.Start(f); err != nil {
			_ = f.Close()
			stop()
			return nil, nil, errcode.Wrap(errcode.IO, err, "--exectrace %s", p.exec)
		}
		stopCPU := stop
		stop = func() { trace.Stop(); _ = f.Close(); stopCPU() }
	}
	heap = func() error {
		if p.mem == "" {
			return nil
		}
		f, err := os.Create(p.mem)
		if err != nil {
			return errcode.Wrap(errcode.IO, err, "--memprofile %s", p.mem)
		}
		runtime.GC()
		if err := errors.Join(pprof.Lookup("heap").WriteTo(f, 0), f.Close()); err != nil {
			return errcode.Wrap(errcode.IO, err, "--memprofile %s", p.mem)
		}
		return nil
	}
	return stop, heap, nil
}
