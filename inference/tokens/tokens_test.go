package tokens

import (
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	tiktoken "github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

// Known cl100k_base counts (the reference tokenizer's).
func TestCountKnown(t *testing.T) {
	var c Counter
	for _, tt := range []struct {
		text string
		want int64
	}{
		{"", 0},
		{"hello world", 2},
		{"tiktoken is great!", 6},
		{"<|endoftext|>", 1},
		{"a<|endoftext|>b<|fim_prefix|>", 4},
		{"  \n\n  x", 3},
	} {
		if got, ok := c.Count(tt.text); !ok || got != tt.want {
			t.Errorf("Count(%q) = %d, %v; want %d", tt.text, got, ok, tt.want)
		}
	}
}

// reference is tiktoken-go's cl100k_base, a regex-engine implementation
// of the same encoding, used only to check this package's.
var reference = sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
	tiktoken.SetBpeLoader(loader.NewOfflineLoader())
	return tiktoken.GetEncoding(Encoding)
})

// referenceCount counts text with the reference.
func referenceCount(t testing.TB, text string) int64 {
	t.Helper()
	enc, err := reference()
	if err != nil {
		t.Fatal(err)
	}
	return int64(len(enc.Encode(text, []string{"all"}, nil)))
}

// differential are texts where the pattern's alternatives meet: apostrophes,
// spaces before letters and punctuation, digit runs, newlines inside white
// space, trailing white space, non-Latin letters and numbers, a JSON
// payload as murmur writes it, a long run a naive merge would be slow on.
var differential = []string{
	"It's we'LL they'Re I'M you'Ve he'D 'sand 'x ' s",
	"  hello   world\t\tx \n\n  y\r\n\r\nz   ",
	"1234567 12 3.14159 ½ ٣٤٥ x1y22z333",
	`{"max_tokens":8192,"messages":[{"content":[{"text":"What is 6*7?\nThanks!","type":"text"}],"role":"user"}],"model":"m","params":{},"system":"[Capsule]\nName: q","tools":[]}`,
	"日本語のテキスト、句読点。한국어 Ελληνικά русский",
	"!!!??? ...\n\n\n--- ***  ```go\nfunc main() {}\n```",
	"emoji 👍🏽 and combining e\u0301 and \u00a0nbsp\u2028sep",
	strings.Repeat("a", 5000),
	strings.Repeat("ab1 ", 300),
	"trailing spaces   ",
	" \n",
	"\n",
	"x<|endoftext|>y <|endofprompt|>",
	// Segment cuts (cut): a quote and a letter after punctuation, next to
	// contractions, spaces, newlines, digits and non-ASCII letters.
	`'"s '"ll !"re x"y ,"z 1"a \n"b` + "\n\"c  \"d _\"e \"\"f é\"g" + `{"":"x","'s":"'t"}`,
	strings.Repeat(`{"content":"You are a careful assistant, it's \"quoted\" text.","role":"user"},`, 4),
}

func TestCountMatchesReference(t *testing.T) {
	var c Counter
	for _, text := range differential {
		got, _ := c.Count(text)
		if want := referenceCount(t, text); got != want {
			t.Errorf("Count(%.60q) = %d, reference %d", text, got, want)
		}
	}
}

// A text's count is the sum of its segments' counts: counted whole (piece
// by piece, no segment memory) and through the segments, twice (the
// second time from the memory), the counts agree.
func TestSegmentsSumToWhole(t *testing.T) {
	payload, resp := payloadText()
	var c Counter
	if err := c.Load(); err != nil {
		t.Fatal(err)
	}
	for _, text := range append([]string{payload, resp}, differential...) {
		if strings.Contains(text, "<|") {
			continue
		}
		whole := c.countPieces(text)
		for round := range 2 {
			if got, _ := c.Count(text); got != whole {
				t.Errorf("round %d: Count(%.60q) = %d through segments, %d whole", round, text, got, whole)
			}
		}
	}
	if len(c.segments) == 0 {
		t.Error("no segment was remembered")
	}
}

// FuzzCount checks Count against the reference on any valid UTF-8 text.
func FuzzCount(f *testing.F) {
	for _, s := range differential {
		f.Add(s)
	}
	var c Counter
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) || len(text) > 4096 {
			return
		}
		got, _ := c.Count(text)
		if want := referenceCount(t, text); got != want {
			t.Fatalf("Count(%q) = %d, reference %d", text, got, want)
		}
	})
}

// Invalid UTF-8 counts as its U+FFFD replacement; concurrent counts agree.
func TestCountInvalidUTF8AndConcurrent(t *testing.T) {
	var c Counter
	a, _ := c.Count("x\xffy")
	b, _ := c.Count("x\uFFFDy")
	if a != b {
		t.Errorf("invalid UTF-8: %d tokens, its replacement %d", a, b)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for _, text := range differential {
				if got, _ := c.Count(text); got != referenceCount(t, text) {
					t.Errorf("concurrent Count(%.40q) = %d", text, got)
				}
			}
		})
	}
	wg.Wait()
}

// payloadText is a quickstart-sized request payload (about 2.5 KB) and
// its response.
func payloadText() (string, string) {
	system := "[Capsule]\nName: quickstart\nVersion: 0.1.0\nWorkdir: /tmp/run/sessions/ses_0123456789abcdef0123456789abcdef\nManifest: murmur.yaml (in your workdir)\n" +
		strings.Repeat("You are a careful assistant. Use the calc tool for every calculation, even an easy one. ", 6)
	tools := strings.Repeat(`{"description":"Evaluates an arithmetic expression with + - * /, parentheses, decimal numbers and unary minus","name":"calc","parameters":{"properties":{"expression":{"description":"The expression to evaluate","type":"string"}},"required":["expression"],"type":"object"}},`, 2)
	payload := `{"max_tokens":8192,"messages":[{"content":[{"text":"What is 6 times 7?","type":"text"}],"role":"user"}],"model":"claude-sonnet-4-5","params":{},"system":"` + system + `","tools":[` + tools + `]}`
	resp := `{"stop_reason": "tool_call", "content": [{"type": "text", "text": "I'll work that out with the calculator."}, {"type": "tool_call", "id": "call_1", "name": "calc", "input": {"expression": "6*7"}}]}`
	return payload, resp
}

// BenchmarkCountTurn is one turn's counting (payload and response) once
// the run's earlier cases have filled the piece memory.
func BenchmarkCountTurn(b *testing.B) {
	var c Counter
	payload, resp := payloadText()
	c.Count(payload)
	b.SetBytes(int64(len(payload) + len(resp)))
	b.ResetTimer()
	for i := range b.N {
		// A new session folder per case: the pieces that differ are new.
		c.Count(strings.Replace(payload, "0123456789abcdef", strings.Repeat("x", i%7), 1))
		c.Count(resp)
	}
}

// BenchmarkCountTurnCold is the same with an empty piece memory.
func BenchmarkCountTurnCold(b *testing.B) {
	payload, resp := payloadText()
	b.SetBytes(int64(len(payload) + len(resp)))
	b.ResetTimer()
	for range b.N {
		var c Counter
		c.Count(payload)
		c.Count(resp)
	}
}

// BenchmarkLoad is the one-time decoding of the embedded ranks.
func BenchmarkLoad(b *testing.B) {
	for range b.N {
		if _, err := loadRanks(); err != nil {
			b.Fatal(err)
		}
	}
}

// cutScan and nextSpecialScan are cut and nextSpecial as first written
// (byte by byte; one search per special), which the faster ones must
// agree with.
func cutScan(text string) int {
	for p := 2; p < len(text); p++ {
		if text[p-1] == '"' && isASCIILetter(text[p]) && isASCIIPunct(text[p-2]) {
			return p
		}
	}
	return len(text)
}

func nextSpecialScan(text string) (int, string) {
	best, which := len(text), ""
	for _, s := range specials {
		if i := strings.Index(text[:min(len(text), best+len(s))], s); i >= 0 && i < best {
			best, which = i, s
		}
	}
	return best, which
}

// FuzzCutAndSpecials checks cut and nextSpecial against their scans on
// every suffix of any text.
func FuzzCutAndSpecials(f *testing.F) {
	for _, s := range differential {
		f.Add(s)
	}
	f.Add(`<|<|fim_<|fim_middle|>"x<|endofprompt|><|endoftext|`)
	f.Add(`"a,"b`)
	f.Fuzz(func(t *testing.T, text string) {
		for i := range len(text) + 1 {
			s := text[i:]
			if got, want := cut(s), cutScan(s); got != want {
				t.Fatalf("cut(%q) = %d, scan %d", s, got, want)
			}
			gi, gs := nextSpecial(s)
			if wi, ws := nextSpecialScan(s); gi != wi || gs != ws {
				t.Fatalf("nextSpecial(%q) = %d, %q; scan %d, %q", s, gi, gs, wi, ws)
			}
		}
	})
}
