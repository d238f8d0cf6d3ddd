package pricing

import (
	"bytes"
	"math"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// FuzzParse: any input is a table or an E-EVL-008 error, never a panic;
// every entry of a table is found again by Lookup under its own name with
// finite, non-negative prices.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"currency: USD\ndate: 2026-12-01\nmodels:\n  \"gpt-5*\": {input: 1.25, output: 10.00, cached_input: 0.125}\n",
		`{"models": {"a?b": {"input": 1, "output": 2}, "*": {"input": 0, "output": 0}}}`,
		"models:\n  a: &p {input: 1, output: 2}\n  b: *p\n",
		"models: {a: {input: -1, output: .nan}}", "- 1", "models: [1, 2]", "\xef\xbb\xbfmodels: {x: {input: 0x10, output: 1_000}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := Parse("f.yaml", bytes.NewReader(data))
		if err != nil {
			if c := errcode.Code(err); c != errcode.Prices {
				t.Fatalf("code %q: %v", c, err)
			}
			return
		}
		if len(tab.Entries()) == 0 {
			t.Fatal("no entry and no error")
		}
		for _, e := range tab.Entries() {
			for _, v := range []float64{e.Price.Input, e.Price.Output, e.Price.CachedInput} {
				if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("bad price %+v", e)
				}
			}
			if _, ok := tab.Lookup(e.Model); !ok {
				t.Fatalf("Lookup(%q) found nothing", e.Model)
			}
		}
	})
}
