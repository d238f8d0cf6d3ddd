package tokens

import "container/heap"

// mergeCount is how many tokens BPE makes of piece: starting from single
// bytes, the adjacent pair whose joined bytes have the lowest rank is
// merged, the leftmost on a tie, until no adjacent pair has a rank
// (tiktoken's byte_pair_merge). A heap of pairs keyed by (rank, start)
// keeps a long piece O(n log n) where the plain scan is O(n²).
func mergeCount(piece []byte, ranks *rankTable) int {
	n := len(piece)
	if n <= 1 {
		return n
	}
	// Parts are the byte ranges [start[i], start[next[i]]), linked.
	next := make([]int, n)
	prev := make([]int, n)
	for i := range n {
		next[i], prev[i] = i+1, i-1
	}
	alive := make([]bool, n)
	for i := range alive {
		alive[i] = true
	}
	end := func(i int) int { // end of part i
		if next[i] >= n {
			return n
		}
		return next[i]
	}
	h := &pairHeap{}
	push := func(i int) { // the pair (i, next[i]), when it has a rank
		if next[i] >= n {
			return
		}
		if r, ok := ranks.rank(piece[i:end(next[i])]); ok {
			heap.Push(h, pair{rank: r, start: i, end: end(next[i])})
		}
	}
	for i := 0; i < n-1; i++ {
		push(i)
	}
	parts := n
	for h.Len() > 0 {
		p := heap.Pop(h).(pair)
		// Skip pairs made stale by an earlier merge: both parts must still
		// begin and end where they did.
		if !alive[p.start] || next[p.start] >= n || end(next[p.start]) != p.end {
			continue
		}
		j := next[p.start]
		alive[j] = false
		next[p.start] = next[j]
		if next[j] < n {
			prev[next[j]] = p.start
		}
		parts--
		if prev[p.start] >= 0 {
			push(prev[p.start])
		}
		push(p.start)
	}
	return parts
}

// pair is a mergeable adjacent pair: the bytes [start, end) and their rank.
type pair struct{ rank, start, end int }

// pairHeap orders pairs by rank, then by start.
type pairHeap []pair

func (h pairHeap) Len() int { return len(h) }
func (h pairHeap) Less(i, j int) bool {
	if h[i].rank != h[j].rank {
		return h[i].rank < h[j].rank
	}
	return h[i].start < h[j].start
}
func (h pairHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *pairHeap) Push(x any)   { *h = append(*h, x.(pair)) }
func (h *pairHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
