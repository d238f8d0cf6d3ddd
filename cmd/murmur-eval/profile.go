package main

import (
	"errors"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// profileOptions are the hidden --cpuprofile and --memprofile flags, for
// profiling a run with `go tool pprof` (BENCHMARKS.md); they change nothing
// else about the run.
type profileOptions struct {
	cpu, mem string
}

func (p *profileOptions) register(fs *pflag.FlagSet) {
	fs.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile of the run to this file")
	fs.StringVar(&p.mem, "memprofile", "", "write a heap profile to this file when the last case has finished")
	_ = fs.MarkHidden("cpuprofile")
	_ = fs.MarkHidden("memprofile")
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
