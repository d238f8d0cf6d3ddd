package component

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/abi"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/binary"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/wasi"
	"github.com/murmur-nexus/murmur-eval/sandbox/internal/memlimit"
	"github.com/murmur-nexus/murmur-eval/sandbox/internal/wasmcheck"
)

// Component is a validated component compiled for one wazero runtime. It
// is immutable but for the instances it keeps for reuse; RunTool and
// RunCapsule are safe for concurrent use and each call gets an instance of
// its own, fresh or reset to exactly a fresh one's state (reuse.go).
type Component struct {
	rt    wazero.Runtime
	main  wazero.CompiledModule
	plan  *plan
	world World
	cfg   wazero.ModuleConfig // never mutated: With* methods copy
	// adapter and forward are set for the preview-1 adapter shape: the
	// compiled adapter and the host module forwarding to it.
	adapter wazero.CompiledModule
	forward string
	// pool holds the linear memories of ended instances, scrubbed, for
	// the next instance that needs one.
	pool *memlimit.Pool
	// reuse keeps ended instances reset for the next call; nil when the
	// component's instances cannot be reset (reuseWhy says why).
	reuse    *reuse
	reuseWhy string
	// tables is the most elements a table may grow to
	// (capabilities.limits.table_elements), for the refusal's message.
	tables uint64
}

// poolRegions is the most idle linear memories, and the most idle
// instances (reuse), a component keeps: more than murmur-eval runs at once
// at its largest documented --workers.
const poolRegions = 1024

// Compile validates bin against murmur's shape and world w, compiles its
// main module with rt (whose compilation cache makes a second Compile
// cheap) and makes sure rt has host modules for every interface the main
// module imports. rt must be configured WithCloseOnContextDone(true) for
// deadlines to stop a spinning guest. Every refusal is E-RUN-001 naming
// what is unsupported.
func Compile(ctx context.Context, rt wazero.Runtime, bin *Binary, w World, opts ...Option) (*Component, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	p, err := validate(bin.c, w)
	if err != nil {
		return nil, err
	}
	if err := checkInstances(bin.c, o.instances); err != nil {
		return nil, err
	}
	main, globals, why, err := prepareMain(bin.c.Modules[p.main], p, w)
	if err != nil {
		return nil, err
	}
	// Before wazero sizes anything by its counts; tables capped after PrepareReset's rewrite.
	if main, err = wasmcheck.Prepare(main, o.tableElements); err != nil {
		return nil, errcode.Wrap(errcode.RunCapsule, err, "component main module")
	}
	cm, err := rt.CompileModule(ctx, main)
	if err != nil {
		return nil, errcode.Wrap(errcode.RunCapsule, err, "compile component main module")
	}
	var skip []string
	if p.adapter >= 0 {
		skip = append(skip, adapterName)
	}
	if err := linkImports(ctx, rt, cm, w, skip...); err != nil {
		_ = cm.Close(ctx)
		return nil, err
	}
	var adapter wazero.CompiledModule
	var forward string
	if p.adapter >= 0 {
		if adapter, forward, err = compileAdapter(ctx, rt, bin.c.Modules[p.adapter], cm, w, o.tableElements); err != nil {
			_ = cm.Close(ctx)
			return nil, err
		}
	}
	if err := checkExports(cm, p, w); err != nil {
		_ = cm.Close(ctx)
		return nil, err
	}
	// The main module never sees wazero's own WASI, but wazero seeds a
	// math/rand source for every instance without a RandSource, which was
	// a third of a call's CPU.
	cfg := wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize").WithRandSource(rand.Reader)
	c := &Component{rt: rt, main: cm, plan: p, world: w, cfg: cfg, adapter: adapter, forward: forward,
		pool: memlimit.NewPool(poolRegions), reuseWhy: why, tables: uint64(cmp.Or(o.tableElements, wasmcheck.MaxTableElements))}
	if why == "" {
		c.reuse = newReuse(globals, c.pool, poolRegions)
	}
	return c, nil
}

// prepareMain returns the main module to compile: for a world called
// once per instance (tool, driver, script capsule) without a preview-1
// adapter, rewritten by binary.PrepareReset so that its instances can be
// reset and reused, with the exports of its mutable globals; why says
// what rules reuse out, and main is then the module as it is.
func prepareMain(mod []byte, p *plan, w World) (main []byte, globals []string, why string, err error) {
	switch {
	case w == WorldHook:
		return mod, nil, "a hook's instance lives as long as its session", nil
	case p.adapter >= 0:
		return mod, nil, "the preview-1 adapter's instance is not reset", nil
	}
	r, err := binary.PrepareReset(mod)
	if err != nil {
		return nil, nil, "", err
	}
	if r.Why != "" {
		return mod, nil, r.Why, nil
	}
	return r.Module, r.Globals, "", nil
}

// Option changes how Compile compiles.
type Option func(*options)

type options struct {
	tableElements uint32 // 0: murmur's default
	instances     uint64 // 0: murmur's default
}

// WithTableElements caps every table the component's core modules define
// at n elements (capabilities.limits.table_elements; the engine's
// TableElements): a larger minimum is refused, table.grow past it returns
// -1. Without it, murmur's default, 100,000.
func WithTableElements(n uint32) Option { return func(o *options) { o.tableElements = n } }

// WithInstances refuses a component that makes more than n core instances
// in a call (capabilities.limits.instances): murmur's store would fail
// every call of it at instantiation. Without it, murmur's default, 1,000.
func WithInstances(n uint64) Option { return func(o *options) { o.instances = n } }

// defaultInstances is murmur's capabilities.limits.instances when a
// manifest sets none.
const defaultInstances = 1000

// coreInstantiations is how many core modules b instantiates.
func coreInstantiations(b *binary.Component) uint64 {
	n := uint64(0)
	for _, ci := range b.CoreInstances {
		if ci.Module >= 0 {
			n++
		}
	}
	return n
}

// checkInstances refuses a component that instantiates more core modules
// than limit (0: defaultInstances). murmur (wasmtime) counts one instance
// for each core module a component instantiates, its main module, adapter
// and shims alike, and fails the instantiation past the limit; the
// component model's bags of exports are not instances.
func checkInstances(b *binary.Component, limit uint64) error {
	if limit == 0 {
		limit = defaultInstances
	}
	n := coreInstantiations(b)
	if n <= limit {
		return nil
	}
	return errcode.New(errcode.RunCapsule,
		"the component instantiates %d core modules; capabilities.limits.instances allows %d (murmur fails every call of it: resource limit exceeded: instance count too high at %d)",
		n, limit, limit+1).
		WithHint("raise capabilities.limits.instances to at least %d", n)
}

// checkExports checks the main module's memory and the core signatures of
// the world's functions.
func checkExports(cm wazero.CompiledModule, p *plan, w World) error {
	if _, ok := cm.ExportedMemories()["memory"]; !ok {
		return unsupported("main module does not export its memory")
	}
	exp := cm.ExportedFunctions()
	if w == WorldHook {
		return checkHookSigs(exp, p)
	}
	if f := exp[p.run]; f == nil {
		return unsupported("main module does not export %s", p.run)
	}
	return checkRunSig(exp[p.run], w)
}

func checkRunSig(f api.FunctionDefinition, w World) error {
	want, res := abi.Sig(i32, i32, i32, i32, i32, i32), abi.Sig(i32)
	if w.export() == WorldCapsule.export() {
		want, res = nil, nil
	}
	if !abi.SameSig(f.ParamTypes(), want) || !abi.SameSig(f.ResultTypes(), res) {
		return unsupported("core export %s has the wrong signature", f.ExportNames())
	}
	return nil
}

// linkImports checks each import of the main module against the host's
// functions (interface without version, then the function's flat
// signature) and registers the host modules.
func linkImports(ctx context.Context, rt wazero.Runtime, cm wazero.CompiledModule, w World, skip ...string) error {
	all := hostFuncs()
	need := map[string]iface{}
outer:
	for _, f := range cm.ImportedFunctions() {
		mod, name, _ := f.Import()
		for _, sk := range skip {
			if mod == sk {
				continue outer
			}
		}
		if _, ok := w.allowedImport(mod); !ok {
			why, _ := w.allowedImport(mod)
			return unsupported("main module: %s", why)
		}
		base := unversioned(mod)
		hf, ok := all[base][name]
		if !ok && wasi.IsHTTP(base) {
			hf, ok = onHost(wasi.Unimplemented(base, name, f.ParamTypes(), f.ResultTypes())), true
		}
		if !ok {
			return unsupported("main module imports %s.%s, which this host does not provide", mod, name)
		}
		if !abi.SameSig(hf.Params, f.ParamTypes()) || !abi.SameSig(hf.Results, f.ResultTypes()) {
			return unsupported("main module imports %s.%s with signature %v -> %v, want %v -> %v", mod, name, f.ParamTypes(), f.ResultTypes(), hf.Params, hf.Results)
		}
		if need[mod] == nil {
			need[mod] = iface{}
			for k, v := range all[base] {
				need[mod][k] = v
			}
		}
		need[mod][name] = hf
	}
	for _, m := range cm.ImportedMemories() {
		mod, name, _ := m.Import()
		if len(skip) == 0 || mod != "env" {
			return unsupported("main module imports memory %s.%s", mod, name)
		}
	}
	for mod, fns := range need {
		if err := registerHost(ctx, rt, mod, fns); err != nil {
			return errcode.Wrap(errcode.Internal, err, "register host module %s", mod)
		}
		have := rt.Module(mod).ExportedFunctionDefinitions()
		for name := range fns {
			if have[name] == nil {
				return unsupported("%s.%s is not available: an earlier component registered %s without it", mod, name, mod)
			}
		}
	}
	return nil
}

// Close releases the compiled code.
func (c *Component) Close(ctx context.Context) error {
	c.reuse.close(ctx)
	c.pool.Close()
	if c.adapter != nil {
		_ = c.adapter.Close(ctx)
	}
	return c.main.Close(ctx)
}

// wasmPage is the size of a linear memory page.
const wasmPage = 65536

// instance is one instantiated main module (and adapter) with its state.
type instance struct {
	s     *state
	m     api.Module
	alloc *memlimit.Allocator
	limit uint64 // the memory limit it was made under
	// tables is the component's table limit (elements), for messages.
	tables uint64
	// reusable: the instance may be reset and kept after its call (reuse).
	reusable bool
	// fns are the main module's functions called so far: each of wazero's
	// api.Function carries its own call stack, made once per instance.
	fns map[string]api.Function
}

// fn returns the main module's export name, nil if it has none.
func (in *instance) fn(name string) api.Function {
	if f, ok := in.fns[name]; ok {
		return f
	}
	f := in.m.ExportedFunction(name)
	if in.fns == nil {
		in.fns = map[string]api.Function{}
	}
	in.fns[name] = f
	return f
}

// bind makes s the state of in's calls: its memory and allocator.
func (in *instance) bind(s *state) {
	in.s = s
	s.Mem = in.m.Memory()
	s.MainRealloc = in.fn("cabi_realloc")
	s.Realloc = s.MainRealloc
}

// newState is a fresh host-side state for env, with env's defaults filled.
func newState(env *Env) *state {
	if env.Name == "" {
		env.Name = "component"
	}
	maxOut := env.MaxOutputBytes
	if maxOut <= 0 {
		maxOut = sandbox.DefaultMaxOutputBytes
	}
	s := &state{env: env}
	s.Init(wasi.Config{Root: env.Root, OpenRoot: env.OpenRoot, Env: env.Env, Args: env.Args, Stdin: env.Stdin, Now: env.Now, Network: env.Network,
		HTTP: env.HTTP, MaxHTTPBodyBytes: env.MaxHTTPBodyBytes, OnHTTPDenied: env.OnHTTPDenied}, maxOut)
	return s
}

// instantiate makes a fresh instance for s with env's memory limit;
// callCtx must carry s (stateKey).
func (c *Component) instantiate(callCtx context.Context, s *state) (*instance, error) {
	in := &instance{s: s, limit: s.env.MemoryLimitBytes, tables: c.tables}
	if lim := s.env.MemoryLimitBytes; lim > 0 {
		in.alloc = memlimit.New(lim, c.pool)
		callCtx = experimental.WithMemoryAllocator(callCtx, in.alloc)
	}
	err := in.alloc.Instantiate(func() (err error) {
		if c.adapter != nil {
			return c.instantiateWithAdapter(callCtx, s, in)
		}
		in.m, err = c.rt.InstantiateModule(callCtx, c.main, c.cfg)
		if err == nil {
			in.bind(s)
		}
		return err
	})
	if err == nil {
		s.Realloc = s.MainRealloc
		in.reusable = c.reuse.fresh(in) // nil reuse (an adapter, a hook): never
	}
	return in, err
}

// acquire returns an idle instance reset for s, or a fresh one.
func (c *Component) acquire(callCtx context.Context, s *state) (*instance, error) {
	if in := c.reuse.get(s, s.env.MemoryLimitBytes); in != nil {
		return in, nil
	}
	return c.instantiate(callCtx, s)
}

// close releases the instance and every handle its state holds.
func (in *instance) close(ctx context.Context) {
	s := in.s
	if s.Adapter != nil {
		_ = s.Adapter.Close(context.WithoutCancel(ctx))
	}
	if in.m != nil {
		_ = in.m.Close(context.WithoutCancel(ctx))
	}
	s.H.CloseAll()
}

// refused is the memory growth the limit refused, 0 if none.
func (in *instance) refused() uint64 { return in.alloc.Refused() }

// withDeadline is ctx bounded by d (none when d is 0), its cause
// sandbox.ErrDeadline.
func withDeadline(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d > 0 {
		return context.WithTimeoutCause(ctx, d, sandbox.ErrDeadline)
	}
	return ctx, func() {}
}

// call runs fn against an instance with env's limits: a reset one (reuse)
// or a fresh one.
func (c *Component) call(ctx context.Context, env *Env, fn func(ctx context.Context, in *instance) error) (*state, error) {
	s := newState(env)
	callCtx, cancel := withDeadline(ctx, env.Deadline)
	defer cancel()
	callCtx = context.WithValue(callCtx, stateKey{}, s)
	in, err := c.acquire(callCtx, s)
	if err == nil && c.reuse.learning() {
		s.OnWait(func() { c.reuse.learn(in) })
	}
	if err == nil {
		err = abi.Guard(func() error { return fn(callCtx, in) })
	}
	s.Close() // the WASI Host's outgoing HTTP
	refused := in.refused()
	// A call whose context ended may have its module closed by wazero
	// after it returned: only a call that ended before its context did
	// leaves an instance to reuse.
	if err != nil || callCtx.Err() != nil || !c.reuse.put(in) {
		in.close(ctx)
	} else {
		s.H.CloseAll()
	}
	if err == nil && c.world == WorldCapsule && refused > 0 {
		// murmur's limiter traps the capsule at the refused growth; a
		// capsule that got memory.grow's -1 and returned anyway still
		// exceeded its limit.
		err = errors.New("linear memory growth refused")
	}
	if err == nil {
		return s, nil
	}
	denied := in.denied() // the guard's global is read only for a failed call
	if rerr := s.RootErr(); rerr != nil {
		return s, errcode.Wrap(errcode.IO, rerr, "open %s's preopen", env.Name)
	}
	if c.world == WorldCapsule {
		return s, capsuleError(ctx, callCtx, env.Deadline, denied, err)
	}
	return s, failure(ctx, callCtx, env, denied, err)
}

// RunTool calls murmur:tool/run's run with input on an instance of its own:
// lowers tool-input, lifts tool-result (checking tags, bounds and UTF-8),
// then calls post-return. A guest failure is E-RUN-001 wrapping
// sandbox.ErrTrap, ErrDeadline or ErrMemory; the returned result still
// carries stdout, stderr and chunks.
func (c *Component) RunTool(ctx context.Context, env Env, input ToolInput) (ToolResult, error) {
	if c.world == WorldCapsule || c.world == WorldHook {
		return ToolResult{}, errcode.New(errcode.Internal, "RunTool on a %s component", c.world.name())
	}
	var res ToolResult
	s, err := c.call(ctx, &env, func(ctx context.Context, in *instance) error {
		s := in.s
		params := s.lowerInput(ctx, input)
		out, err := in.fn(c.plan.run).Call(ctx, params...)
		if err != nil {
			return err
		}
		res, err = liftResult(s.Mem, uint32(out[0]))
		if err != nil {
			return err
		}
		if c.plan.postReturn != "" {
			if _, err := in.fn(c.plan.postReturn).Call(ctx, out[0]); err != nil {
				return err
			}
		}
		return nil
	})
	res.Stdout, res.StdoutTruncated = s.Stdout.Bytes(), s.Stdout.Truncated()
	res.Stderr, res.StderrTruncated = s.Stderr.Bytes(), s.Stderr.Truncated()
	res.Chunks = s.chunks
	return res, err
}

// CapsuleOutput is what a script capsule's run left behind.
type CapsuleOutput struct {
	Stdout, Stderr []byte
	Chunks         []Chunk
}

// RunCapsule calls murmur:capsule/run's run on an instance of its own, bounded
// by env.Deadline (capabilities.limits.deadline_seconds) and
// env.MemoryLimitBytes (capabilities.limits.memory_bytes). A failure is
// E-RUN-001 in murmur's words for a capsule ("capsule execution ..."),
// wrapping sandbox.ErrDeadline, ErrMemory or ErrTrap; the caller's context
// ending is Timeout or Cancelled as for any call.
func (c *Component) RunCapsule(ctx context.Context, env Env) (CapsuleOutput, error) {
	if c.world != WorldCapsule {
		return CapsuleOutput{}, errcode.New(errcode.Internal, "RunCapsule on a %s component", c.world.name())
	}
	s, err := c.call(ctx, &env, func(ctx context.Context, in *instance) error {
		_, err := in.fn(c.plan.run).Call(ctx)
		return err
	})
	return CapsuleOutput{Stdout: s.Stdout.Bytes(), Stderr: s.Stderr.Bytes(), Chunks: s.chunks}, err
}
