// Package tokens counts tokens as murmur counts them (agent.rs
// count_tokens): cl100k_base over the bytes murmur serialises, special
// tokens ("<|endoftext|>") counted as one token each, as
// encode_with_special_tokens does.
//
// The BPE ranks are embedded in the binary (the assets of
// github.com/pkoukk/tiktoken-go-loader): nothing is downloaded at run time.
// They are decoded on the process's first count (about 25 ms) into a table
// that is never written again. A Counter remembers the pieces of text it
// has counted, and the segments between JSON keys and string values (see
// cut), so what repeats across turns and cases (the system prompt, the tool
// inventory, earlier messages) costs one map look-up per segment, all of a
// text's look-ups under one read lock; one Counter is shared by every case
// of a run.
package tokens

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// Encoding is the name of the encoding murmur counts with.
const Encoding = "cl100k_base"

// specials are cl100k_base's special tokens.
var specials = [...]string{"<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|endofprompt|>"} //nolint:gochecknoglobals // read-only list of cl100k special tokens

// maxCached bounds the pieces a Counter remembers; past it the memory is
// dropped and refilled (a run's text is mostly the same pieces).
const maxCached = 1 << 17

// maxSegmentBytes bounds the memory of the segments (see cut) a Counter
// remembers, as maxCached bounds the pieces: each counts its bytes and
// segmentOverhead, about what its map entry and key header take, so a map
// of short segments (a JSON payload has many between its keys) stays as
// bounded as one of long ones.
const (
	maxSegmentBytes = 4 << 20
	segmentOverhead = 48
)

// embeddedRanks is the decoded ranks table, read-only once built: like
// the unicode package's tables, it is data of the binary, decoded lazily so
// that a run that counts nothing does not pay for it.
var embeddedRanks = sync.OnceValues(loadRanks) //nolint:gochecknoglobals // the embedded ranks, decoded once on first use and read-only after

// Counter counts cl100k_base tokens. The zero value is ready; it is safe
// for concurrent use.
type Counter struct {
	ranks  *rankTable  // nil until the first count
	loaded atomic.Bool // ranks is set: no lock needed to read it

	mu           sync.RWMutex
	pieces       map[string]int   // piece -> token count
	segments     map[string]int64 // segment (see cut) -> token count
	segmentBytes int
}

// Load decodes the ranks (about 25 ms) if they are not yet. A run calls it
// while it prepares rather than leave it to its first case's turn, where
// every case of the first wave would wait for it; Count calls it too, and
// an error is the one Count meets (it then falls back on an estimate).
func (c *Counter) Load() error {
	if c.loaded.Load() {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ranks != nil {
		return nil
	}
	ranks, err := embeddedRanks()
	c.ranks = ranks
	if err == nil {
		c.loaded.Store(true)
	}
	return err
}

// loadRanks parses the embedded cl100k_base.tiktoken: one "base64 rank"
// line per token.
func loadRanks() (*rankTable, error) {
	data, err := assets.Assets.ReadFile(Encoding + ".tiktoken")
	if err != nil {
		return nil, err
	}
	ranks := newRankTable(100256)
	buf := make([]byte, 0, 256)
	for line := range bytes.Lines(data) {
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			continue
		}
		tok, rank, ok := bytes.Cut(line, []byte(" "))
		if !ok {
			return nil, fmt.Errorf("%s: malformed line %q", Encoding, line)
		}
		buf = buf[:base64.StdEncoding.DecodedLen(len(tok))]
		n, err := base64.StdEncoding.Decode(buf, tok)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", Encoding, err)
		}
		r, err := strconv.Atoi(string(rank))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", Encoding, err)
		}
		ranks.put(buf[:n], r)
	}
	return ranks, nil
}

// Count returns the number of cl100k_base tokens of text. Invalid UTF-8 is
// counted as U+FFFD, as murmur's strings hold it. When the ranks cannot be
// loaded it returns murmur's own fallback, len/4, and ok false.
func (c *Counter) Count(text string) (n int64, ok bool) {
	if c.Load() != nil {
		return int64(len(text) / 4), false
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	var buf [8]string
	missed := buf[:0] // segments not remembered: few once a run is warm
	c.mu.RLock()
	for text != "" {
		i, special := nextSpecial(text)
		for span := text[:i]; span != ""; {
			k := cut(span)
			if m, ok := c.segments[span[:k]]; ok {
				n += m
			} else {
				missed = append(missed, span[:k])
			}
			span = span[k:]
		}
		if special == "" {
			break
		}
		n++
		text = text[i+len(special):]
	}
	c.mu.RUnlock()
	if len(missed) > 0 {
		n += c.countSegments(missed)
	}
	return n, true
}

// nextSpecial returns where the first special token of text starts and
// which it is, or len(text) and "". Every special begins with "<|" and
// none is a prefix of another, so the first "<|" that begins one is where
// the first of them starts.
func nextSpecial(text string) (int, string) {
	for from := 0; ; {
		i := strings.Index(text[from:], "<|")
		if i < 0 {
			return len(text), ""
		}
		i += from
		for _, s := range specials {
			if strings.HasPrefix(text[i:], s) {
				return i, s
			}
		}
		from = i + 1
	}
}

// cut is where the first segment of text ends: just before the first
// ASCII letter that follows a double quote and another ASCII punctuation
// character (the start of a JSON key or string value: `,"model`, `:"You`),
// or len(text). A piece always begins there, whatever precedes: the
// character before the quote can only be the start or the middle of a
// run of [^\s\p{L}\p{N}], which takes the quote and stops at the
// letter; and no piece before the run looks past its end. So the text's
// count is the sum of its segments' counts (FuzzCount checks it against
// the reference), and a segment that repeats (the system prompt, the
// tool inventory, a conversation's earlier messages) is counted once.
func cut(text string) int {
	for q := 1; q+1 < len(text); q++ { // q: a quote's index
		k := strings.IndexByte(text[q:len(text)-1], '"')
		if k < 0 {
			break
		}
		q += k
		if isASCIILetter(text[q+1]) && isASCIIPunct(text[q-1]) {
			return q + 1
		}
	}
	return len(text)
}

func isASCIILetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

// isASCIIPunct is [^\s\p{L}\p{N}] for an ASCII byte.
func isASCIIPunct(b byte) bool {
	return b > ' ' && b < 0x7f && !isASCIILetter(b) && (b < '0' || b > '9')
}

// countSegments counts segments (see cut) piece by piece and remembers
// them, under one lock, returning their sum.
func (c *Counter) countSegments(segs []string) (n int64) {
	var buf [8]int64
	counts := buf[:0]
	for _, seg := range segs {
		m := c.countPieces(seg)
		counts = append(counts, m)
		n += m
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, seg := range segs {
		if _, ok := c.segments[seg]; ok {
			continue // a repeat in segs, or another count's
		}
		size := len(seg) + segmentOverhead
		if c.segments == nil || c.segmentBytes+size > maxSegmentBytes {
			c.segments, c.segmentBytes = make(map[string]int64), 0
		}
		c.segments[strings.Clone(seg)] = counts[k]
		c.segmentBytes += size
	}
	return n
}

// countPieces counts text (no special token in it) piece by piece.
func (c *Counter) countPieces(text string) (n int64) {
	for piece := range pieces(text) {
		n += int64(c.piece(piece))
	}
	return n
}

// piece counts one pre-tokenized piece, remembering it.
func (c *Counter) piece(p string) int {
	if c.ranks.has(p) {
		return 1
	}
	c.mu.RLock()
	n, ok := c.pieces[p]
	c.mu.RUnlock()
	if ok {
		return n
	}
	n = mergeCount([]byte(p), c.ranks)
	c.mu.Lock()
	if c.pieces == nil || len(c.pieces) >= maxCached {
		c.pieces = make(map[string]int)
	}
	c.pieces[strings.Clone(p)] = n // not p: it would keep the caller's whole text
	c.mu.Unlock()
	return n
}
