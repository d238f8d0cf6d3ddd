package pipeline

import (
	"reflect"
	"slices"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Key names the result a stage produces and its type, as go/analysis's
// Analyzer.ResultType does: the producing stage's package declares it
// (`var Result = pipeline.NewKey[*Capsule](Name)`), its dependents read the
// result through it (ResultOf), and nothing else knows the type. A Key is
// a value; two Keys of the same stage and type are the same key.
type Key[T any] struct{ stage string }

// NewKey returns the key of stage's result, of type T.
func NewKey[T any](stage string) Key[T] { return Key[T]{stage: stage} }

// Stage is the name of the stage that produces the result.
func (k Key[T]) Stage() string { return k.stage }

// Type is the result's type.
func (k Key[T]) Type() reflect.Type { return reflect.TypeFor[T]() }

// Dep is a Key with its type parameter erased: what a Node declares it
// produces, for the executor's checks.
type Dep interface {
	Stage() string
	Type() reflect.Type
}

// Store keeps v as the result of k's stage. While the executor runs a
// stage, that stage may store only its own result: storing another stage's
// fails the running stage (E-EVL-099) and leaves the result as it was.
// Outside a run (a test seeding a case, Graph.Prepare's scratch case) any
// result may be stored.
func Store[T any](c *Case, k Key[T], v T) {
	if c.running != "" && c.running != k.stage {
		if c.violation == nil {
			c.violation = errcode.New(errcode.Internal, "stage %s stored the result of stage %s", c.running, k.stage)
		}
		return
	}
	if c.results == nil {
		c.results = map[string]any{}
	}
	if _, ok := c.results[k.stage]; !ok {
		c.stored = append(c.stored, k.stage)
	}
	c.results[k.stage] = v
}

// Lookup returns k's result, and whether the case holds one: a stage that
// runs despite failures (Report) reads what its requirements left this
// way. A stage reading a result it does not require gets nothing, as if
// the stage had not run, and fails (E-EVL-099).
func Lookup[T any](c *Case, k Key[T]) (T, bool) {
	var zero T
	if c.running != "" && c.running != k.stage && !slices.Contains(c.requires, k.stage) {
		if c.violation == nil {
			c.violation = errcode.New(errcode.Internal, "stage %s reads the result of stage %s, which it does not require", c.running, k.stage)
		}
		return zero, false
	}
	v, ok := c.results[k.stage].(T)
	return v, ok
}

// ResultOf returns k's result, or E-EVL-099 naming the stage that did not
// produce it: what a stage calls for each of its requirements.
func ResultOf[T any](c *Case, k Key[T]) (T, error) {
	v, ok := Lookup(c, k)
	if !ok {
		return v, errcode.New(errcode.Internal, "%s: stage %s did not run", stageOrCase(c), k.stage)
	}
	return v, nil
}

func stageOrCase(c *Case) string {
	if c.running != "" {
		return c.running
	}
	return "case"
}

// Grader is a stage result that can say whether the model passed: Judge
// asks the case's results, latest stored first, and the first that decides
// gives the verdict of a case no stage failed.
type Grader interface {
	// Grade returns whether the model passed, and whether this result
	// decides (a Report that scored nothing leaves it to the Loop's
	// exit status).
	Grade() (passed, decided bool)
}

func errInput(c *Case) error {
	return errcode.New(errcode.Internal, "%s: case %q carries a dataset line of type %T", stageOrCase(c), c.ID, c.Input)
}
