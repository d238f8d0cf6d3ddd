// Package suggest finds the known word a mistyped one most likely meant,
// for "did you mean" hints on unknown keys and subcommands.
package suggest

import "strings"

// Closest returns the word of known nearest to word by edit distance
// (Damerau–Levenshtein with adjacent transpositions, case-insensitive),
// or "" when none is close: a distance of at most 1 for words of up to 4
// letters, 2 up to 8, 3 beyond. Ties go to the earlier word of known.
// A known word that word merely extends or shortens by a plural "s" or a
// separator is close too ("artifact" for "artifacts", "max_turn").
func Closest(word string, known []string) string {
	w := strings.ToLower(word)
	best, bestD := "", -1
	for _, k := range known {
		if k == word {
			continue
		}
		d := distance(w, strings.ToLower(k))
		if d <= limit(len(w)) && (bestD < 0 || d < bestD) {
			best, bestD = k, d
		}
	}
	return best
}

func limit(n int) int {
	switch {
	case n <= 4:
		return 1
	case n <= 8:
		return 2
	}
	return 3
}

// distance is the optimal string alignment distance between a and b, in
// bytes (keys and subcommands are ASCII).
func distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
