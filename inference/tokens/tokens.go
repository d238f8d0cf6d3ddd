// Package tokens counts tokens as murmur counts them (agent.rs
// count_tokens): cl100k_base over the bytes murmur serialises, special
// tokens ("<|endoftext|>") counted as one token each, as
// encode_with_special_tokens does.
//
// The BPE ranks are embedded in the binary (the assets of
// github.com/pkoukk/tiktoken-go-loader): nothing is downloaded at run time.
// They are decoded on the process's first count (about 25 ms) into a table
// that is never written again. A Counter remembers the pieces of text it
// has counted, and the longer segments between JSON keys and string values
// (see cut), so what repeats across turns and cases (the system prompt,
// the tool inventory, earlier messages) costs one map look-up per segment;
// one Counter is shared by every case of a run.
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

// minSegment is the shortest segment (see cut) a Counter remembers whole;
// shorter ones are counted piece by piece. maxSegmentBytes bounds the
// bytes of the segments it remembers, as maxCached bounds the pieces.
const (
	minSegment      = 64
	maxSegmentBytes = 4 << 20
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

	mu           sync.Mutex
	pieces       map[string]int   // piece -> token count
	segments     map[string]int64 // segment (see cut) -> token count
	segmentBytes int
}

// load returns the ranks table.
func (c *Counter) load() error {
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
	if c.load() != nil {
		return int64(len(text) / 4), false
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	for text != "" {
		i, special := nextSpecial(text)
		for span := text[:i]; span != ""; {
			k := cut(span)
			n += c.segment(span[:k])
			span = span[k:]
		}
		if special == "" {
			break
		}
		n++
		text = text[i+len(special):]
	}
	return n, true
}

// nextSpecial returns where the first special token of text starts and
// which it is, or len(text) and "".
func nextSpecial(text string) (int, string) {
	best, which := len(text), ""
	for _, s := range specials {
		if i := strings.Index(text[:min(len(text), best+len(s))], s); i >= 0 && i < best {
			best, which = i, s
		}
	}
	return best, which
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
	for p := 2; p < len(text); p++ {
		if text[p-1] == '"' && isASCIILetter(text[p]) && isASCIIPunct(text[p-2]) {
			return p
		}
	}
	return len(text)
}

func isASCIILetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

// isASCIIPunct is [^\s\p{L}\p{N}] for an ASCII byte.
func isASCIIPunct(b byte) bool {
	return b > ' ' && b < 0x7f && !isASCIILetter(b) && (b < '0' || b > '9')
}

// segment counts one segment (see cut): one look-up when it was counted
// before and is long enough to remember, piece by piece otherwise.
func (c *Counter) segment(seg string) int64 {
	if len(seg) < minSegment {
		return c.countPieces(seg)
	}
	c.mu.Lock()
	n, ok := c.segments[seg]
	c.mu.Unlock()
	if ok {
		return n
	}
	n = c.countPieces(seg)
	c.mu.Lock()
	if c.segments == nil || c.segmentBytes+len(seg) > maxSegmentBytes {
		c.segments, c.segmentBytes = make(map[string]int64), 0
	}
	c.segments[strings.Clone(seg)] = n
	c.segmentBytes += len(seg)
	c.mu.Unlock()
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
	c.mu.Lock()
	n, ok := c.pieces[p]
	c.mu.Unlock()
	if ok {
		return n
	}
	n = mergeCount([]byte(p), c.ranks)
	c.mu.Lock()
	if c.pieces == nil || len(c.pieces) >= maxCached {
		c.pieces = make(map[string]int)
	}
	c.pieces[p] = n
	c.mu.Unlock()
	return n
}
