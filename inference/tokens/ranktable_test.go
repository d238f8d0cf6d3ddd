package tokens

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strconv"
	"testing"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// TestRankTableMatchesAMap: the embedded ranks read into the table and
// into a map agree on every token, and on bytes that are no token.
func TestRankTableMatchesAMap(t *testing.T) {
	data, err := assets.Assets.ReadFile(Encoding + ".tiktoken")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for line := range bytes.Lines(data) {
		tok, rank, ok := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte(" "))
		if !ok {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(string(tok))
		if err != nil {
			t.Fatal(err)
		}
		r, err := strconv.Atoi(string(rank))
		if err != nil {
			t.Fatal(err)
		}
		want[string(b)] = r
	}
	table, err := loadRanks()
	if err != nil {
		t.Fatal(err)
	}
	if table.len() != len(want) {
		t.Fatalf("table holds %d tokens, the map %d", table.len(), len(want))
	}
	for tok, r := range want {
		if got, ok := table.rank([]byte(tok)); !ok || got != r {
			t.Fatalf("%q: rank %d, %v; want %d", tok, got, ok, r)
		}
		if !table.has(tok) {
			t.Fatalf("%q: has is false", tok)
		}
	}
	for _, s := range []string{"", "\x00\x01\x02 not a token at all", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"} {
		if _, inMap := want[s]; inMap {
			continue
		}
		if _, ok := table.rank([]byte(s)); ok || table.has(s) {
			t.Errorf("%q: found, but it is no token", s)
		}
	}
}

// TestRankTableGrowsAndOverwrites: a table made small grows as tokens
// are put, and a token put twice keeps the last rank.
func TestRankTableGrowsAndOverwrites(t *testing.T) {
	table := newRankTable(1)
	for i := range 1000 {
		table.put([]byte(fmt.Sprint("tok", i)), i)
	}
	table.put([]byte("tok7"), 70_000)
	if table.len() != 1000 {
		t.Fatalf("%d tokens, want 1000", table.len())
	}
	for i := range 1000 {
		want := i
		if i == 7 {
			want = 70_000
		}
		if got, ok := table.rank([]byte(fmt.Sprint("tok", i))); !ok || got != want {
			t.Errorf("tok%d: %d, %v; want %d", i, got, ok, want)
		}
	}
	if table.has("tok1000") {
		t.Error("tok1000 was never put")
	}
}
