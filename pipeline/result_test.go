package pipeline

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

type capsule struct{ name string }

var (
	capsuleKey = NewKey[*capsule]("resolve")
	otherKey   = NewKey[*capsule]("verify")
)

// TestResultRules: a stage reads its requirements' results by key and
// stores only its own; the executor fails a stage (E-EVL-099) that breaks
// a rule, and skips its dependents.
func TestResultRules(t *testing.T) {
	resolve := func(_ context.Context, c *Case) error {
		Store(c, capsuleKey, &capsule{"calc"})
		return nil
	}
	tests := []struct {
		name     string
		verify   func(context.Context, *Case) error
		requires []string
		want     []stageView
	}{
		{"reads a requirement", func(_ context.Context, c *Case) error {
			cp, err := ResultOf(c, capsuleKey)
			if err != nil || cp.name != "calc" {
				t.Errorf("ResultOf = %v, %v", cp, err)
			}
			Store(c, otherKey, cp)
			return nil
		}, []string{"resolve"}, []stageView{{"resolve", "ran", ""}, {"verify", "ran", ""}, {"stage", "ran", ""}}},
		{"reads a stage it does not require", func(_ context.Context, c *Case) error {
			_, err := ResultOf(c, capsuleKey)
			return err
		}, nil, []stageView{{"resolve", "ran", ""}, {"verify", "failed", errcode.Internal}, {"stage", "skipped", errcode.Prerequisite}}},
		{"stores another stage's result", func(_ context.Context, c *Case) error {
			Store(c, capsuleKey, &capsule{"forged"})
			Store(c, otherKey, &capsule{})
			return nil
		}, []string{"resolve"}, []stageView{{"resolve", "ran", ""}, {"verify", "failed", errcode.Internal}, {"stage", "skipped", errcode.Prerequisite}}},
		{"stores nothing", func(context.Context, *Case) error { return nil },
			[]string{"resolve"}, []stageView{{"resolve", "ran", ""}, {"verify", "failed", errcode.Internal}, {"stage", "skipped", errcode.Prerequisite}}},
		{"panics", func(context.Context, *Case) error { panic("boom") },
			[]string{"resolve"}, []stageView{{"resolve", "ran", ""}, {"verify", "failed", errcode.Internal}, {"stage", "skipped", errcode.Prerequisite}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := NewGraph(
				Node{Stage: fakeStage{name: "resolve", run: resolve}, Decl: Decl{Produces: capsuleKey}},
				Node{Stage: fakeStage{name: "verify", run: tt.verify}, Decl: Decl{Produces: otherKey, Requires: tt.requires}},
				Node{Stage: fakeStage{name: "stage"}, Decl: Decl{Requires: []string{"verify"}}},
			)
			if err != nil {
				t.Fatal(err)
			}
			c := &Case{}
			g.Execute(context.Background(), c)
			if diff := cmp.Diff(tt.want, view(c)); diff != "" {
				t.Errorf("stages (-want +got):\n%s", diff)
			}
			if cp, _ := Lookup(c, capsuleKey); cp == nil || cp.name != "calc" {
				t.Errorf("resolve's result is %v after verify ran, want calc", cp)
			}
		})
	}
}

// TestStoredTypeChecked: a stage that stores a result of another type than
// its node declares fails.
func TestStoredTypeChecked(t *testing.T) {
	g, err := NewGraph(Node{Stage: fakeStage{name: "resolve", run: func(_ context.Context, c *Case) error {
		Store(c, NewKey[string]("resolve"), "not a capsule")
		return nil
	}}, Decl: Decl{Produces: capsuleKey}})
	if err != nil {
		t.Fatal(err)
	}
	c := &Case{}
	g.Execute(context.Background(), c)
	if diff := cmp.Diff([]stageView{{"resolve", "failed", errcode.Internal}}, view(c)); diff != "" {
		t.Errorf("stages (-want +got):\n%s", diff)
	}
}

// TestProducesNamesItsStage: a node declaring another stage's key is
// refused before anything runs.
func TestProducesNamesItsStage(t *testing.T) {
	_, err := NewGraph(Node{Stage: fakeStage{name: "resolve"}, Decl: Decl{Produces: otherKey}})
	if errcode.Code(err) != errcode.Internal {
		t.Fatalf("NewGraph = %v, want E-EVL-099", err)
	}
}

// TestInputOf: a stage reads the dataset line as its own type; another
// type is a coded error.
func TestInputOf(t *testing.T) {
	c := &Case{ID: "a", Input: capsule{"x"}}
	if v, err := InputOf[capsule](c); err != nil || v.name != "x" {
		t.Errorf("InputOf = %v, %v", v, err)
	}
	if _, err := InputOf[string](c); errcode.Code(err) != errcode.Internal {
		t.Errorf("InputOf[string] = %v, want E-EVL-099", err)
	}
	// A pointer to the type is another type (jobs carry the line's
	// index, and NewCase the line read again, not pointers into a list).
	if _, err := InputOf[capsule](&Case{ID: "p", Input: &capsule{"y"}}); errcode.Code(err) != errcode.Internal {
		t.Errorf("InputOf(pointer) = %v, want E-EVL-099", err)
	}
	// An input that could not be read is its error, code and all.
	unread := errcode.New(errcode.IO, "line changed")
	if _, err := InputOf[capsule](&Case{ID: "e", Input: unread}); err != unread {
		t.Errorf("InputOf(error input) = %v, want %v", err, unread)
	}
}

// TestInputOfErrorInput: an input that could not be read is returned as
// the error, whatever T asks for, even an interface the error satisfies
// (any, error, an interface of its methods): never as a value with a nil
// error.
func TestInputOfErrorInput(t *testing.T) {
	unread := errcode.New(errcode.IO, "line changed")
	c := &Case{ID: "e", Input: unread}
	for _, tc := range []struct {
		name string
		read func() (any, error)
	}{
		{"capsule", func() (any, error) { return InputOf[capsule](c) }},
		{"any", func() (any, error) { return InputOf[any](c) }},
		{"error", func() (any, error) { return InputOf[error](c) }},
		{"interface{ Error() string }", func() (any, error) { return InputOf[interface{ Error() string }](c) }},
		{"*errcode.Error", func() (any, error) { return InputOf[*errcode.Error](c) }},
	} {
		v, err := tc.read()
		if err != unread {
			t.Errorf("InputOf[%s] = %v, %v; want the input's error %v", tc.name, v, err, unread)
		}
	}
}
