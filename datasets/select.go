package datasets

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"iter"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Shard is one part of a dataset split across machines: shard Index of
// Count, 0-based. The zero value (Count 0) means "no sharding".
type Shard struct {
	Index, Count int
}

// ParseShard reads "I/N" (0 <= I < N). An empty string is no sharding.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	i, n, ok := strings.Cut(s, "/")
	idx, err1 := strconv.Atoi(strings.TrimSpace(i))
	count, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || count < 1 || idx < 0 || idx >= count {
		return Shard{}, errcode.New(errcode.Usage, "invalid shard %q: want I/N with 0 <= I < N", s).
			WithHint("--shard 0/3 runs the first of three shards")
	}
	return Shard{Index: idx, Count: count}, nil
}

// String renders the shard as "I/N", or "" for no sharding.
func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Contains reports whether the case id falls in the shard. The choice
// depends only on the id (the first 8 bytes of its SHA-256, modulo Count),
// so shards do not change when the dataset is reordered or grows.
func (s Shard) Contains(caseID string) bool {
	if s.Count <= 1 {
		return true
	}
	sum := sha256.Sum256([]byte(caseID))
	return binary.BigEndian.Uint64(sum[:8])%uint64(s.Count) == uint64(s.Index)
}

// Selection narrows a dataset: a glob on case ids (path.Match syntax, ""
// for all), a shard, and at most Limit cases (0 for no limit), applied in
// that order.
type Selection struct {
	Filter string
	Shard  Shard
	Limit  int
}

// Validate checks the filter's syntax and the limit.
func (sel Selection) Validate() error {
	if _, err := path.Match(sel.Filter, ""); err != nil {
		return errcode.New(errcode.Usage, "invalid --filter %q: %v", sel.Filter, err).
			WithHint("use a glob such as 'calc-*' (quote it for the shell)")
	}
	if sel.Limit < 0 {
		return errcode.New(errcode.Usage, "--limit must not be negative, got %d", sel.Limit)
	}
	return nil
}

// IDs is what a Selection reads of a dataset: its case ids by index.
// *Dataset is one.
type IDs interface {
	Len() int
	ID(i int) string
}

// Picked is what a Selection took of a dataset: case indices in dataset
// order. A selection of every case holds no list (4 bytes a case fewer).
type Picked struct {
	all int     // with idx nil: cases 0 to all-1
	idx []int32 // the indices otherwise
}

// Len is the number of cases picked.
func (p Picked) Len() int {
	if p.idx == nil {
		return p.all
	}
	return len(p.idx)
}

// Has reports whether case i is picked.
func (p Picked) Has(i int) bool {
	if p.idx == nil {
		return i >= 0 && i < p.all
	}
	_, ok := slices.BinarySearch(p.idx, int32(i))
	return ok
}

// All yields the picked indices in order.
func (p Picked) All() iter.Seq[int] {
	return func(yield func(int) bool) {
		if p.idx == nil {
			for i := range p.all {
				if !yield(i) {
					return
				}
			}
			return
		}
		for _, i := range p.idx {
			if !yield(int(i)) {
				return
			}
		}
	}
}

// Apply returns the selected cases, in dataset order. It assumes Validate
// passed.
func (sel Selection) Apply(cases IDs) Picked {
	n := cases.Len()
	if sel.Filter == "" && sel.Limit == 0 && sel.Shard.Count <= 1 {
		return Picked{all: n}
	}
	out := []int32{}
	for i := range n {
		if sel.Limit > 0 && len(out) == sel.Limit {
			break
		}
		id := cases.ID(i)
		if sel.Filter != "" {
			if ok, _ := path.Match(sel.Filter, id); !ok {
				continue
			}
		}
		if !sel.Shard.Contains(id) {
			continue
		}
		out = append(out, int32(i))
	}
	return Picked{idx: slices.Clip(out)}
}
