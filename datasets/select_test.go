package datasets

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"", Shard{}, true},
		{"0/1", Shard{0, 1}, true},
		{"2/3", Shard{2, 3}, true},
		{" 1 / 4 ", Shard{1, 4}, true},
		{"3/3", Shard{}, false},
		{"-1/3", Shard{}, false},
		{"1/0", Shard{}, false},
		{"1", Shard{}, false},
		{"a/b", Shard{}, false},
	}
	for _, tt := range tests {
		got, err := ParseShard(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil && errcode.Code(err) != errcode.Usage {
			t.Errorf("ParseShard(%q): code %q, want %q", tt.in, errcode.Code(err), errcode.Usage)
		}
	}
}

// idList is a dataset's ids, for Selection.Apply.
type idList []string

func (l idList) Len() int        { return len(l) }
func (l idList) ID(i int) string { return l[i] }

// pick returns the ids at the selected indices.
func (l idList) pick(sel Picked) []string {
	var out []string
	for i := range sel.All() {
		out = append(out, l[i])
	}
	return out
}

// TestShardsPartitionAndIgnoreOrder: N shards cover every case exactly once,
// stay balanced, and do not depend on dataset order.
func TestShardsPartitionAndIgnoreOrder(t *testing.T) {
	var cases idList
	for i := range 3000 {
		cases = append(cases, fmt.Sprintf("case-%04d", i))
	}
	shuffled := append(idList(nil), cases...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	seen := map[string]int{}
	for i := range 3 {
		sel := Selection{Shard: Shard{i, 3}}
		part := cases.pick(sel.Apply(cases))
		if n := len(part); n < 900 || n > 1100 {
			t.Errorf("shard %d/3 has %d of 3000 cases, want about 1000", i, n)
		}
		inShuffled := map[string]bool{}
		for _, id := range shuffled.pick(sel.Apply(shuffled)) {
			inShuffled[id] = true
		}
		for _, id := range part {
			seen[id]++
			if !inShuffled[id] {
				t.Errorf("case %s is in shard %d/3 in one order but not another", id, i)
			}
		}
	}
	if len(seen) != len(cases) {
		t.Errorf("shards cover %d cases, want %d", len(seen), len(cases))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("case %s in %d shards", id, n)
		}
	}
}

func TestSelectionFilterAndLimit(t *testing.T) {
	cases := idList{"calc-1", "notes/a", "calc-2", "calc-3"}
	tests := []struct {
		sel  Selection
		want []string
	}{
		{Selection{}, []string{"calc-1", "notes/a", "calc-2", "calc-3"}},
		{Selection{Filter: "calc-*"}, []string{"calc-1", "calc-2", "calc-3"}},
		{Selection{Filter: "calc-*", Limit: 2}, []string{"calc-1", "calc-2"}},
		{Selection{Filter: "notes/*"}, []string{"notes/a"}},
		{Selection{Limit: 1}, []string{"calc-1"}},
		{Selection{Filter: "none"}, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, cases.pick(tt.sel.Apply(cases))); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tt.sel, diff)
		}
	}
	if err := (Selection{Filter: "["}).Validate(); errcode.Code(err) != errcode.Usage {
		t.Errorf("Validate(bad glob) = %v, want E-EVL-001", err)
	}
}

// TestPickedHas: Has agrees with All for every selection kind.
func TestPickedHas(t *testing.T) {
	cases := idList{"a-1", "b-1", "a-2", "b-2", "a-3"}
	for _, sel := range []Selection{{}, {Filter: "a-*"}, {Filter: "z*"}, {Limit: 2}, {Shard: Shard{Index: 1, Count: 2}}} {
		p := sel.Apply(cases)
		in := map[int]bool{}
		for i := range p.All() {
			in[i] = true
		}
		for i := -1; i <= len(cases); i++ {
			if p.Has(i) != in[i] {
				t.Errorf("%+v: Has(%d) = %v, All has it: %v", sel, i, p.Has(i), in[i])
			}
		}
	}
}
