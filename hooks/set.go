package hooks

import (
	"net/http"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/sandbox/component"
)

// Fixed limits of async hooks (murmur-formats.md §1.3: not configurable).
const (
	QueueDepth   = 1024
	DrainTimeout = 15 * time.Second
)

// Spec is one hook artifact as Verify found it: compiled, with its own
// manifest text and the operator's grant from the capsule manifest.
type Spec struct {
	Name, Version string
	// Module is a preview-1 hook's compiled module; Component a component
	// hook's (world hook). Exactly one is set.
	Module    *sandbox.Module
	Component *component.Component
	Manifest  []byte // the hook's own murmur.yaml
	// Scope is the operator's capabilities.filesystem.scope for the hook,
	// already validated; "" for none (the hook sees no file system).
	Scope    string
	Overflow capsule.Overflow // drop or block, for async hooks
	// Network is the hook's allow list for wasi:http: its own
	// network.allow only (capsule.Manifest.NetworkRules).
	Network []capsule.AllowRule
}

// Hook is one loaded hook.
type Hook struct {
	Spec
	Contract
}

// Options are the run-wide settings every hook call shares.
type Options struct {
	// Deadline bounds each hook call: 30 s unless the manifest declares
	// capabilities.limits.deadline_seconds.
	Deadline time.Duration
	// EvalConfig is MURMUR_EVAL_CONFIG (observability.eval as JSON), ""
	// when the manifest has no eval block.
	EvalConfig string
	// DatasetID is MURMUR_DATASET_ID, "" when observability.eval.dataset_id
	// is not set.
	DatasetID string
	// OTelEndpoint is MURMUR_OTEL_ENDPOINT, "" when
	// observability.otel_endpoint is not set.
	OTelEndpoint string
}

// OptionsFor returns the options murmur derives from a capsule manifest.
func OptionsFor(m *capsule.Manifest) Options {
	o := Options{Deadline: capsule.DefaultHookDeadlineSeconds * time.Second, OTelEndpoint: m.Observability.OTelEndpoint}
	if l := m.Capabilities.Limits; l.DeadlineDeclared {
		o.Deadline = time.Duration(l.DeadlineSeconds) * time.Second
	}
	if e := m.Observability.Eval; e != nil {
		o.EvalConfig, o.DatasetID = e.JSON(), e.DatasetID
	}
	return o
}

// Set is a run's hooks, in manifest order, shared read-only by every case.
type Set struct {
	engine *sandbox.Engine
	hooks  []*Hook
	opts   Options
	// queueDepth is QueueDepth; tests lower it.
	queueDepth int
}

// Load checks each hook's own manifest as murmur's staging does and
// returns the run's set. A contract murmur refuses (an unknown value, a
// policy the binding cannot honour, async with a committing policy, async
// on-stage) is E-IO-003 "hook <name>@<version> invalid config: ...",
// murmur's code and words.
func Load(engine *sandbox.Engine, specs []Spec, opts Options) (*Set, error) {
	s := &Set{engine: engine, opts: opts, queueDepth: QueueDepth}
	for _, sp := range specs {
		c, msg := ParseContract(sp.Manifest)
		if msg != "" {
			return nil, errcode.New(errcode.IO, "hook %s@%s invalid config: %s", sp.Name, sp.Version, msg).
				WithHint("fix binding, execution_mode or commit_policy in the hook's own murmur.yaml (docs/hooks.md)")
		}
		if sp.Overflow == "" {
			sp.Overflow = capsule.OverflowDrop
		}
		s.hooks = append(s.hooks, &Hook{Spec: sp, Contract: c})
	}
	return s, nil
}

// Hooks returns the loaded hooks in manifest order.
func (s *Set) Hooks() []*Hook {
	if s == nil {
		return nil
	}
	return s.hooks
}

// Bound reports whether any hook receives event.
func (s *Set) Bound(event string) bool {
	for _, h := range s.Hooks() {
		if h.Bound(event) {
			return true
		}
	}
	return false
}

// Case is what a case adds to the run's settings.
type Case struct {
	SessionDir string // the session folder: logs/ and the hooks' scopes
	CaseID     string // MURMUR_CASE_ID
	// FormationID is MURMUR_FORMATION_ID, passed on (to on-stage too)
	// when murmur-eval's own environment has it, as murmur does.
	FormationID string
	// HTTP sends component hooks' wasi:http requests (the run's shared
	// client; nil: one per call). OnHTTPDenied, when set, hears of each
	// request a hook's allow list refused (any goroutine).
	HTTP         *http.Client
	OnHTTPDenied func(hook string, t capsule.Target)
}

// Open returns the dispatcher of one case. It starts nothing: async
// workers start with the first event they receive.
func (s *Set) Open(c Case, now func() time.Time) *Dispatcher {
	if s == nil || len(s.hooks) == 0 {
		return nil
	}
	if now == nil {
		now = time.Now
	}
	env := []string{}
	if s.opts.OTelEndpoint != "" {
		env = append(env, "MURMUR_OTEL_ENDPOINT="+s.opts.OTelEndpoint)
	}
	if s.opts.EvalConfig != "" {
		env = append(env, "MURMUR_EVAL_CONFIG="+s.opts.EvalConfig)
	}
	env = append(env, "MURMUR_CASE_ID="+c.CaseID)
	if s.opts.DatasetID != "" {
		env = append(env, "MURMUR_DATASET_ID="+s.opts.DatasetID)
	}
	var stageEnv []string
	if c.FormationID != "" {
		env = append(env, "MURMUR_FORMATION_ID="+c.FormationID)
		stageEnv = []string{"MURMUR_FORMATION_ID=" + c.FormationID}
	}
	return &Dispatcher{set: s, dir: c.SessionDir, env: env, stageEnv: stageEnv, now: now, start: now(),
		http: c.HTTP, onDenied: c.OnHTTPDenied}
}
