package tokens

import (
	"hash/maphash"
	"math/bits"
)

// rankTable maps a token's bytes to its BPE rank, like a map[string]int,
// in flat arrays the garbage collector does not trace: the 100,256
// cl100k_base tokens as a map of strings were 100,256 objects marked in
// every collection of a run (BENCHMARKS.md, issue 19, session 8). It is
// read-only once built, and safe for concurrent reads.
type rankTable struct {
	seed  maphash.Seed
	arena []byte   // every token's bytes, back to back
	ends  []uint32 // token i is arena[ends[i-1]:ends[i]] (ends[-1] = 0)
	ranks []int32
	slots []uint32 // open addressing: a token's index + 1, or 0 for an empty slot
	mask  uint64
}

// newRankTable returns a table sized for about n tokens.
func newRankTable(n int) *rankTable {
	size := 1 << bits.Len(uint(2*max(n, 1))) // a load of at most a half
	return &rankTable{seed: maphash.MakeSeed(), ends: make([]uint32, 0, n), ranks: make([]int32, 0, n),
		slots: make([]uint32, size), mask: uint64(size - 1)}
}

func (t *rankTable) token(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = t.ends[i-1]
	}
	return t.arena[start:t.ends[i]]
}

// put sets tok's rank; a token put again keeps the last rank, as a map
// assignment does.
func (t *rankTable) put(tok []byte, rank int) {
	for s := maphash.Bytes(t.seed, tok) & t.mask; ; s = (s + 1) & t.mask {
		switch i := t.slots[s]; {
		case i == 0:
			t.arena = append(t.arena, tok...)
			t.ends = append(t.ends, uint32(len(t.arena)))
			t.ranks = append(t.ranks, int32(rank))
			t.slots[s] = uint32(len(t.ranks))
			if 2*len(t.ranks) > len(t.slots) {
				t.grow()
			}
			return
		case string(t.token(int(i-1))) == string(tok):
			t.ranks[i-1] = int32(rank)
			return
		}
	}
}

// grow doubles the slots and places every token again.
func (t *rankTable) grow() {
	t.slots = make([]uint32, 2*len(t.slots))
	t.mask = uint64(len(t.slots) - 1)
	for i := range t.ranks {
		s := maphash.Bytes(t.seed, t.token(i)) & t.mask
		for t.slots[s] != 0 {
			s = (s + 1) & t.mask
		}
		t.slots[s] = uint32(i + 1)
	}
}

// rank returns tok's rank, and whether tok is a token.
func (t *rankTable) rank(tok []byte) (int, bool) {
	for s := maphash.Bytes(t.seed, tok) & t.mask; ; s = (s + 1) & t.mask {
		i := t.slots[s]
		if i == 0 {
			return 0, false
		}
		if string(t.token(int(i-1))) == string(tok) {
			return int(t.ranks[i-1]), true
		}
	}
}

// has reports whether s is a token.
func (t *rankTable) has(s string) bool {
	for h := maphash.String(t.seed, s) & t.mask; ; h = (h + 1) & t.mask {
		i := t.slots[h]
		if i == 0 {
			return false
		}
		if string(t.token(int(i-1))) == s {
			return true
		}
	}
}

// len is the number of tokens.
func (t *rankTable) len() int { return len(t.ranks) }
