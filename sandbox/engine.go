package sandbox

import (
	"context"
	"crypto/rand"
	"errors"
	"os"
	"sync/atomic"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox/internal/memlimit"
)

// DefaultMaxOutputBytes is how much of each of a call's stdout and stderr is
// kept when Config.MaxOutputBytes is zero.
const DefaultMaxOutputBytes = 16 << 20

// Config configures an Engine.
type Config struct {
	// CacheDir is where compiled modules are kept between runs, so a tool
	// compiled by one run loads fast in the next. "" keeps them in memory
	// for this Engine only.
	CacheDir string
	// MemoryLimitBytes caps each instance's linear memory
	// (capabilities.limits.memory_bytes). 0 leaves wazero's 4 GiB ceiling.
	MemoryLimitBytes uint64
	// TableElements caps each table a module defines
	// (capabilities.limits.table_elements): a larger minimum is refused at
	// Compile and table.grow past it returns -1. 0 means murmur's default,
	// 100,000.
	TableElements uint32
	// Instances caps the core instances a component may make in one call
	// (capabilities.limits.instances): a component that makes more is
	// refused at Compile. 0 means murmur's default, 1,000.
	Instances uint64
	// MaxOutputBytes caps how much of each of stdout and stderr a call keeps;
	// the rest is discarded and Output marks the stream truncated.
	// 0 means DefaultMaxOutputBytes.
	MaxOutputBytes int
}

// Engine owns one wazero runtime, its compilation cache and the WASI
// preview 1 host module. Create one per run with NewEngine.
//
// Compile and Run are safe for concurrent use. Close must not be called
// while either is in progress; after it, both fail with E-EVL-099.
type Engine struct {
	rt       wazero.Runtime
	cache    wazero.CompilationCache
	wasi     map[string]api.FunctionDefinition // host functions a guest may import
	own      map[string]api.FunctionDefinition // HostModule's functions
	base     wazero.ModuleConfig               // never mutated: With* methods copy
	memLimit uint64
	tables   uint32 // Config.TableElements
	insts    uint64 // Config.Instances
	// pool holds the linear memories of ended calls, scrubbed, for the
	// next: every tool call instantiates its module afresh.
	pool      *memlimit.Pool
	maxOutput int
	closed    atomic.Bool
}

// poolRegions is the most idle linear memories an Engine keeps: more than
// murmur-eval runs at once at its largest documented --workers.
const poolRegions = 1024

// NewEngine creates the runtime for one run. The context bounds the setup
// only; it is not kept.
func NewEngine(ctx context.Context, cfg Config) (*Engine, error) {
	rc := wazero.NewRuntimeConfigCompiler().WithCloseOnContextDone(true)
	// The memory limit is enforced per call by a memlimit.Allocator (see
	// internal/memlimit), not by WithMemoryLimitPages: at that cap memory.grow just
	// returns -1, a Go guest then exits 2 like any other crash, and we could
	// not tell the failure was the limit.
	var cache wazero.CompilationCache
	if cfg.CacheDir != "" {
		c, err := wazero.NewCompilationCacheWithDir(cfg.CacheDir)
		if err != nil {
			return nil, ioError(err, "create compilation cache %s", cfg.CacheDir)
		}
		cache = c
	} else {
		cache = wazero.NewCompilationCache()
	}
	rc = rc.WithCompilationCache(cache)
	rt := wazero.NewRuntimeWithConfig(ctx, rc)

	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		_ = rt.Close(ctx)
		_ = cache.Close(ctx)
		return nil, errcode.Wrap(errcode.Internal, err, "instantiate WASI preview 1")
	}
	if err := instantiateHostModule(ctx, rt); err != nil {
		_ = rt.Close(ctx)
		_ = cache.Close(ctx)
		return nil, errcode.Wrap(errcode.Internal, err, "instantiate %s", HostModule)
	}
	maxOut := cfg.MaxOutputBytes
	if maxOut <= 0 {
		maxOut = DefaultMaxOutputBytes
	}
	base := wazero.NewModuleConfig().
		WithName(""). // anonymous: concurrent instances never clash
		WithSysWalltime().
		WithSysNanotime().
		WithRandSource(rand.Reader)
	return &Engine{
		rt:        rt,
		cache:     cache,
		wasi:      rt.Module(wasi_snapshot_preview1.ModuleName).ExportedFunctionDefinitions(),
		own:       rt.Module(HostModule).ExportedFunctionDefinitions(),
		base:      base,
		memLimit:  cfg.MemoryLimitBytes,
		tables:    cfg.TableElements,
		insts:     cfg.Instances,
		pool:      memlimit.NewPool(poolRegions),
		maxOutput: maxOut,
	}, nil
}

// Close releases the runtime, every Module compiled by it, and the
// compilation cache. The on-disk cache stays for the next run.
func (e *Engine) Close(ctx context.Context) error {
	if e.closed.Swap(true) {
		return nil
	}
	err := e.rt.Close(ctx)
	e.pool.Close() // after the runtime closed what was still open
	if cerr := e.cache.Close(ctx); err == nil {
		err = cerr
	}
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "close wasm runtime")
	}
	return nil
}

// errIfClosed refuses work on a closed engine, which would otherwise
// surface as a confusing wazero error.
func (e *Engine) errIfClosed() error {
	if e.closed.Load() {
		return errcode.New(errcode.Internal, "wasm engine used after Close")
	}
	return nil
}

// ioError maps a host file-system error to the E-IO codes.
func ioError(err error, format string, args ...any) *errcode.Error {
	code := errcode.IO
	switch {
	case errors.Is(err, os.ErrPermission):
		code = errcode.IOPermission
	case errors.Is(err, os.ErrNotExist):
		code = errcode.IONotFound
	}
	return errcode.Wrap(code, err, format, args...)
}
