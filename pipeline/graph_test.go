package pipeline

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// fakeStage is a Stage whose behaviour is a func field.
type fakeStage struct {
	name string
	run  func(ctx context.Context, c *Case) error
}

func (s fakeStage) Name() string { return s.name }

func (s fakeStage) Run(ctx context.Context, c *Case) error {
	if s.run == nil {
		return nil
	}
	return s.run(ctx, c)
}

func node(name string, requires ...string) Node {
	return Node{Stage: fakeStage{name: name}, Decl: Decl{Requires: requires}}
}

func TestNewGraphValidation(t *testing.T) {
	tests := []struct {
		name  string
		nodes []Node
		want  []string // execution order; nil when an error is expected
	}{
		{"ordered", []Node{node("a"), node("b", "a"), node("c", "b")}, []string{"a", "b", "c"}},
		{"declared out of order", []Node{node("c", "b"), node("b", "a"), node("a")}, []string{"a", "b", "c"}},
		{"diamond keeps declaration order", []Node{node("a"), node("c", "a"), node("b", "a"), node("d", "b", "c")}, []string{"a", "c", "b", "d"}},
		{"empty", nil, []string{}},
		{"duplicate", []Node{node("a"), node("a")}, nil},
		{"unknown requirement", []Node{node("a", "zz")}, nil},
		{"self requirement", []Node{node("a", "a")}, nil},
		{"cycle", []Node{node("a", "c"), node("b", "a"), node("c", "b")}, nil},
		{"cycle behind a valid prefix", []Node{node("x"), node("a", "x", "b"), node("b", "a")}, nil},
		{"unnamed", []Node{{Stage: fakeStage{}}}, nil},
		{"nil stage", []Node{{}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := NewGraph(tt.nodes...)
			if tt.want == nil {
				if err == nil {
					t.Fatalf("NewGraph = %v, want an error", g.Names())
				}
				if got := errcode.Code(err); got != errcode.Internal {
					t.Errorf("code = %q, want %q", got, errcode.Internal)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewGraph: %v", err)
			}
			if diff := cmp.Diff(tt.want, g.Names()); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCycleMessageNamesTheLoop(t *testing.T) {
	_, err := NewGraph(node("a", "c"), node("b", "a"), node("c", "b"))
	if err == nil {
		t.Fatal("want an error")
	}
	const want = "stage graph: cycle: a -> c -> b -> a"
	if got := err.Error(); got != want {
		t.Errorf("error = %q, want %q", got, want)
	}
}

func TestSharedStageMayRequireOnlySharedStages(t *testing.T) {
	_, err := NewGraph(node("a"), Node{Stage: fakeStage{name: "b"}, Decl: Decl{Requires: []string{"a"}, Shared: true}})
	if errcode.Code(err) != errcode.Internal {
		t.Errorf("NewGraph = %v, want E-EVL-099", err)
	}
}

// TestPrepareRunsSharedStagesOnce: Prepare runs only the shared stages, so
// the cases that follow find the memo filled.
func TestPrepareRunsSharedStagesOnce(t *testing.T) {
	var memo Memo[int]
	calls := map[string]int{}
	shared := func(ctx context.Context, c *Case) error {
		calls["shared"]++
		_, err := memo.Get(ctx, func(context.Context) (int, error) { calls["work"]++; return 1, nil })
		return err
	}
	g, err := NewGraph(
		Node{Stage: fakeStage{name: "resolve", run: shared}, Decl: Decl{Shared: true}},
		Node{Stage: fakeStage{name: "loop", run: func(context.Context, *Case) error { calls["loop"]++; return nil }}, Decl: Decl{Requires: []string{"resolve"}}},
	)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		g.Execute(context.Background(), &Case{})
	}
	if want := map[string]int{"shared": 4, "work": 1, "loop": 3}; !cmp.Equal(calls, want) {
		t.Errorf("calls = %v, want %v", calls, want)
	}
}
