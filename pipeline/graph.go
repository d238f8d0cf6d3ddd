package pipeline

import (
	"fmt"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Graph is a validated stage graph in execution order. It is immutable and
// safe for concurrent use.
type Graph struct {
	order []Node         // topological order, declaration order among equals
	index map[string]int // stage name → position in order
	live  int            // position of the live node in order; -1 when none
	// run keeps the shared stages' results to close at the run's end
	// (Close); the one mutable part, behind its own lock.
	run *runResults
}

// NewGraph validates nodes (no unnamed or duplicate stage, no stage under
// another's declaration, no stage producing another's result, no unknown
// or self requirement, no shared stage requiring a per-case one, no cycle)
// and returns them in dependency order. Among stages whose requirements
// are met, declaration order is kept, so a table written in the natural
// order runs in that order.
func NewGraph(nodes ...Node) (*Graph, error) {
	nodes = append([]Node(nil), nodes...)
	byName := make(map[string]int, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		if n.Stage == nil || n.Stage.Name() == "" {
			return nil, errcode.New(errcode.Internal, "stage graph: node %d has no stage name", i)
		}
		if n.Name == "" {
			n.Name = n.Stage.Name()
		}
		name := n.Name
		if name != n.Stage.Name() {
			return nil, errcode.New(errcode.Internal, "stage graph: stage %q placed under the declaration of stage %q", n.Stage.Name(), name)
		}
		if j, dup := byName[name]; dup {
			return nil, errcode.New(errcode.Internal, "stage graph: stage %q declared twice (nodes %d and %d)", name, j, i)
		}
		byName[name] = i
		if n.Produces != nil && n.Produces.Stage() != name {
			return nil, errcode.New(errcode.Internal, "stage graph: stage %q declares the result of stage %q", name, n.Produces.Stage())
		}
	}
	for _, n := range nodes {
		for _, r := range n.Requires {
			if r == n.Name {
				return nil, errcode.New(errcode.Internal, "stage graph: stage %q requires itself", r)
			}
			j, ok := byName[r]
			if !ok {
				return nil, errcode.New(errcode.Internal, "stage graph: stage %q requires unknown stage %q", n.Name, r)
			}
			if n.Shared && !nodes[j].Shared {
				return nil, errcode.New(errcode.Internal, "stage graph: shared stage %q requires per-case stage %q", n.Name, r)
			}
		}
	}
	order, err := topoSort(nodes, byName)
	if err != nil {
		return nil, err
	}
	g := &Graph{order: order, index: make(map[string]int, len(order)), live: -1, run: &runResults{}}
	for i, n := range order {
		g.index[n.Name] = i
		if !n.Live {
			continue
		}
		if n.Shared {
			return nil, errcode.New(errcode.Internal, "stage graph: live stage %q is shared", n.Name)
		}
		if g.live >= 0 {
			return nil, errcode.New(errcode.Internal, "stage graph: two live stages, %q and %q", order[g.live].Name, n.Name)
		}
		g.live = i
	}
	return g, nil
}

// topoSort is Kahn's algorithm, picking the earliest-declared ready node each
// round; graphs are a handful of nodes, so quadratic is fine.
func topoSort(nodes []Node, byName map[string]int) ([]Node, error) {
	done := make([]bool, len(nodes))
	order := make([]Node, 0, len(nodes))
	for len(order) < len(nodes) {
		progressed := false
		for i, n := range nodes {
			if done[i] || !requirementsDone(n, byName, done) {
				continue
			}
			done[i] = true
			order = append(order, n)
			progressed = true
			break
		}
		if !progressed {
			return nil, errcode.New(errcode.Internal, "stage graph: cycle: %s", findCycle(nodes, byName, done))
		}
	}
	return order, nil
}

func requirementsDone(n Node, byName map[string]int, done []bool) bool {
	for _, r := range n.Requires {
		if !done[byName[r]] {
			return false
		}
	}
	return true
}

// findCycle walks requirements from an unfinished node until a node repeats,
// and renders the loop as "a -> b -> a".
func findCycle(nodes []Node, byName map[string]int, done []bool) string {
	start := -1
	for i := range nodes {
		if !done[i] {
			start = i
			break
		}
	}
	seen := map[int]int{} // node → position in path
	var path []string
	for cur := start; ; {
		if pos, ok := seen[cur]; ok {
			return strings.Join(append(path[pos:], nodes[cur].Name), " -> ")
		}
		seen[cur] = len(path)
		path = append(path, nodes[cur].Name)
		next := -1
		for _, r := range nodes[cur].Requires {
			if j := byName[r]; !done[j] {
				next = j
				break
			}
		}
		if next < 0 { // cannot happen: an unfinished node has an unfinished requirement
			return fmt.Sprint(path)
		}
		cur = next
	}
}

// Nodes returns the nodes in execution order. The slice is a copy.
func (g *Graph) Nodes() []Node { return append([]Node(nil), g.order...) }

// Names returns the stage names in execution order.
func (g *Graph) Names() []string {
	names := make([]string, len(g.order))
	for i, n := range g.order {
		names[i] = n.Name
	}
	return names
}
