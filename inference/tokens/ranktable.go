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

// slot is where key's probe sequence from hash h ends: the slot that
// holds key, or the empty slot where key would go.
func slot[K ~string | ~[]byte](t *rankTable, h uint64, key K) uint64 {
	s := h & t.mask
	for i := t.slots[s]; i != 0 && string(t.token(int(i-1))) != string(key); i = t.slots[s] {
		s = (s + 1) & t.mask
	}
	return s
}

// put sets tok's rank; a token put again keeps the last rank, as a map
// assignment does.
func (t *rankTable) put(tok []byte, rank int) {
	s := slot(t, maphash.Bytes(t.seed, tok), tok)
	if i := t.slots[s]; i != 0 {
		t.ranks[i-1] = int32(rank)
		return
	}
	t.arena = append(t.arena, tok...)
	t.ends = append(t.ends, uint32(len(t.arena)))
	t.ranks = append(t.ranks, int32(rank))
	t.slots[s] = uint32(len(t.ranks))
	if 2*len(t.ranks) > len(t.slots) {
		t.grow()
	}
}

// grow doubles the slots and places every token again.
func (t *rankTable) grow() {
	t.slots = make([]uint32, 2*len(t.slots))
	t.mask = uint64(len(t.slots) - 1)
	for i := range t.ranks {
		tok := t.token(i)
		t.slots[slot(t, maphash.Bytes(t.seed, tok), tok)] = uint32(i + 1)
	}
}

// rank returns tok's rank, and whether tok is a token.
func (t *rankTable) rank(tok []byte) (int, bool) {
	i := t.slots[slot(t, maphash.Bytes(t.seed, tok), tok)]
	if i == 0 {
		return 0, false
	}
	return int(t.ranks[i-1]), true
}

// has reports whether s is a token.
func (t *rankTable) has(s string) bool {
	return t.slots[slot(t, maphash.String(t.seed, s), s)] != 0
}

// len is the number of tokens.
func (t *rankTable) len() int { return len(t.ranks) }
