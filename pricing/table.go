package pricing

import (
	"maps"
	"slices"
)

// Entry is one model's price in a table and where it came from.
type Entry struct {
	Model  string // the name or glob as written
	Price  Price
	Source string // "built-in", or the file and line ("prices.yaml:7")
}

// Table maps model names and globs to prices. The zero Table prices
// nothing. Nothing changes a Table after it is made: it is safe for
// concurrent use.
type Table struct {
	Currency string // always Currency
	Date     string // the date the prices hold at (YYYY-MM-DD), "" when not said
	Source   string // "built-in", a file, or "file over built-in"
	exact    map[string]Entry
	globs    []globEntry // most specific first
}

type globEntry struct {
	pattern
	Entry
}

// newTable builds a table of entries; a later entry for the same model
// replaces an earlier one.
func newTable(source, date string, entries []Entry) *Table {
	t := &Table{Currency: Currency, Date: date, Source: source, exact: map[string]Entry{}}
	byGlob := map[string]Entry{}
	for _, e := range entries {
		if p := newPattern(e.Model); p.glob {
			byGlob[e.Model] = e
		} else {
			t.exact[e.Model] = e
		}
	}
	for m, e := range byGlob {
		t.globs = append(t.globs, globEntry{newPattern(m), e})
	}
	slices.SortFunc(t.globs, func(a, b globEntry) int {
		if a.moreSpecific(b.pattern) {
			return -1
		}
		return 1
	})
	return t
}

// Lookup is the price of model: an exact name wins over any glob; among
// the globs that match, the one with the most literal characters, then
// the one with fewer wildcards, then the first in byte order. A nil Table
// prices nothing.
func (t *Table) Lookup(model string) (Price, bool) {
	e, ok := t.Find(model)
	return e.Price, ok
}

// Find is Lookup with the entry that matched (its pattern and source).
func (t *Table) Find(model string) (Entry, bool) {
	if t == nil || model == "" {
		return Entry{}, false
	}
	if e, ok := t.exact[model]; ok {
		return e, true
	}
	for _, g := range t.globs {
		if g.match(model) {
			return g.Entry, true
		}
	}
	return Entry{}, false
}

// Entries lists the table's entries, exact names first, each group most
// specific first (docs, tests).
func (t *Table) Entries() []Entry {
	if t == nil {
		return nil
	}
	var out []Entry
	for _, m := range slices.Sorted(maps.Keys(t.exact)) {
		out = append(out, t.exact[m])
	}
	for _, g := range t.globs {
		out = append(out, g.Entry)
	}
	return out
}

// Over is t's entries over base's, entry by entry: a model t names is
// priced by t, any other by base. The date is t's when t says one.
func (t *Table) Over(base *Table) *Table {
	if base == nil {
		return t
	}
	entries := append(base.Entries(), t.Entries()...)
	date := t.Date
	if date == "" {
		date = base.Date
	}
	return newTable(t.Source+" over "+base.Source, date, entries)
}
