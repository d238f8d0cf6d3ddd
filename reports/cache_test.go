package reports

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCacheDigest: summary.json's cache block sums the rows' columns, is
// absent when no row went through a cache, and the terminal says it.
func TestCacheDigest(t *testing.T) {
	tests := []struct {
		name     string
		rows     [][2]int32 // hits, misses
		dir      string
		want     *CacheDigest
		wantLine string
	}{
		{"no cache", [][2]int32{{0, 0}, {0, 0}}, "", nil, ""},
		{"cold", [][2]int32{{0, 2}, {0, 1}}, ".cache", &CacheDigest{Dir: ".cache", Misses: 3}, "cache: 0 hits, 3 misses (.cache)"},
		{"warm", [][2]int32{{2, 0}, {1, 1}}, "", &CacheDigest{Hits: 3, Misses: 1}, "cache: 3 hits, 1 miss"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Summary
			for i, hm := range tt.rows {
				s.Add(ResultRow{RunID: "r", CaseID: string(rune('a' + i)), Epoch: 1, Status: StatusPassed, CacheHits: hm[0], CacheMisses: hm[1]})
			}
			d := s.Digest(0)
			if d.Cache != nil && tt.dir != "" {
				d.Cache.Dir = tt.dir
			}
			if diff := cmp.Diff(d.Cache, tt.want); diff != "" {
				t.Errorf("cache (-got +want):\n%s", diff)
			}
			if got := d.cacheLine(); got != tt.wantLine {
				t.Errorf("line: got %q, want %q", got, tt.wantLine)
			}
		})
	}
}
