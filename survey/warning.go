package survey

import (
	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Kind is what a warning about a run's inputs does to the run. It is
// decided here, where each warning is made, and nowhere else.
type Kind int

const (
	// Note changes nothing scored (an unknown key elsewhere, a renamed
	// scorer, a task_path found from the working directory): printed, and
	// refused only by --strict.
	Note Kind = iota
	// Unapplied is a scorer or a check the inputs configure that would not
	// be applied (E-EVL-007): a misspelt observability key, an unknown
	// scorer type, an expected value murmur-eval does not read. The run
	// would score less than its author wrote, and pass for it.
	Unapplied
	// Refusal is what `mur eval run` refuses or hangs on (E-RUN-006,
	// E-EVL-081, E-EVL-080): every case would fail, or never end, under
	// murmur.
	Refusal
)

// Warning is one finding about a run's inputs, made before any case
// starts. Err holds its code (none for most notes), place, text and hint.
type Warning struct {
	Kind Kind
	Err  *errcode.Error
}

// Refuses says whether the warning refuses the run before any case
// starts, unless the user asks to run anyway.
func (w Warning) Refuses() bool { return w.Kind != Note }

// Notef is a note without a code.
func Notef(format string, args ...any) Warning {
	return Warning{Kind: Note, Err: errcode.New("", format, args...)}
}

// UnknownKey is the warning of a key no field of murmur's format has: a
// key of observability.eval (or one that most likely meant it) drops the
// scorers it configures, any other changes nothing scored.
func UnknownKey(u capsule.UnknownKey) Warning {
	if !u.Scoring() {
		return Notef("%s", u)
	}
	return Warning{Kind: Unapplied, Err: errcode.New(errcode.UnappliedScoring,
		"%s, so the observability.eval scorers it configures are not applied as written", u).
		WithHint("correct the key (docs/manifest.md lists murmur's fields)")}
}

// skipped is the warning of a scorer of a type murmur does not know: it is
// dropped, in murmur's words.
func skipped(s capsule.SkippedScorer) Warning {
	return Warning{Kind: Unapplied, Err: errcode.New(errcode.UnappliedScoring, "%s: the scorer is not applied", s).
		WithHint("use one of murmur's scorer types: %s, %s, %s, %s", capsule.ScorerExitOK, capsule.ScorerMaxTurns, capsule.ScorerMaxTokens, capsule.ScorerToolSequence)}
}

// unapplied is the warning of a case's expected value that turns no check
// on.
func unapplied(format string, args ...any) Warning {
	return Warning{Kind: Unapplied, Err: errcode.New(errcode.UnappliedScoring, format, args...).
		WithHint("correct the key (docs/expected.md lists what expected reads)")}
}

// MurmurRefusals are what `mur eval run` would refuse or hang on in the
// capsule of m: a driver no artifacts: entry declares (E-RUN-006), an
// endpoint the driver's network.allow does not cover (E-EVL-081), a
// lifecycle that waits for A2A tasks forever (E-EVL-080), each in murmur's
// code and words where murmur has them. A replay run reaches no endpoint
// and runs no driver, so the inference ones are left out of it; with
// builtinDriver (--driver builtin) the user chose the built-in provider,
// which answers from the host without the driver component or its network
// grant, so they are notes.
func MurmurRefusals(m *capsule.Manifest, replay, builtinDriver bool) []Warning {
	var out []Warning
	if !replay {
		kind := Refusal
		if builtinDriver {
			kind = Note
		}
		for _, e := range m.MurmurInferenceRefusals() {
			out = append(out, Warning{Kind: kind, Err: e})
		}
	}
	if e := m.MurmurLifecycleRefusal(); e != nil {
		out = append(out, Warning{Kind: Refusal, Err: e})
	}
	return out
}

// String is the warning's text with its code, for tests and logs.
func (w Warning) String() string { return errcode.FormatWarning(w.Err) }

// JudgeMissing is the refusal of a run whose llm_judge scorers (the
// manifest's, or cases' expected.rubric) have no judge model to score
// them: with --run-anyway they are not applied.
func JudgeMissing() Warning {
	return Warning{Kind: Unapplied, Err: errcode.New(errcode.JudgeMissing,
		"the run has llm_judge scorers (murmur.yaml's observability.eval, or a case's expected.rubric) and no judge model to score them").
		WithHint("name one with --judge-model (and --judge-provider, --judge-endpoint, MURMUR_EVAL_JUDGE_API_KEY); --run-anyway runs without them, as mur eval run does")}
}
