package reports

import "fmt"

// CacheDigest is what the model-turn cache (--cache) did in a run:
// summary.json's "cache", absent when no request went through a cache.
type CacheDigest struct {
	// Dir is the cache folder as given; "" when the digest was summed
	// from rows alone (a merge of shards).
	Dir string `json:"dir,omitempty"`
	// Hits and Misses sum the rows' cache_hits and cache_misses: the
	// requests the cache answered and those sent on to the model.
	Hits   int64 `json:"hits"`
	Misses int64 `json:"misses"`
	// Corrupt counts the misses whose entry was there but invalid, and
	// Unwritten the answers that could not be stored, in this invocation
	// (set by the run command).
	Corrupt   int64 `json:"corrupt"`
	Unwritten int64 `json:"unwritten"`
}

// cacheCount sums the rows' cache columns.
type cacheCount struct{ hits, misses int64 }

func (c *cacheCount) add(r ResultRow) {
	c.hits += int64(r.CacheHits)
	c.misses += int64(r.CacheMisses)
}

// digest is nil when no request went through a cache.
func (c cacheCount) digest() *CacheDigest {
	if c.hits == 0 && c.misses == 0 {
		return nil
	}
	return &CacheDigest{Hits: c.hits, Misses: c.misses}
}

// cacheLine reads "cache: 12 hits, 3 misses (.cache/turns)", with the
// corrupt and unwritten entries when there were any; "" without a cache.
func (d *Digest) cacheLine() string {
	c := d.Cache
	if c == nil {
		return ""
	}
	misses := "misses"
	if c.Misses == 1 {
		misses = "miss"
	}
	s := fmt.Sprintf("cache: %s, %d %s", plural(int(c.Hits), "hit"), c.Misses, misses)
	if c.Corrupt > 0 {
		s += fmt.Sprintf(", %d invalid entries replaced", c.Corrupt)
	}
	if c.Unwritten > 0 {
		s += fmt.Sprintf(", %d answers not stored", c.Unwritten)
	}
	if c.Dir != "" {
		s += " (" + clean(c.Dir) + ")"
	}
	return s
}
