package scoring

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnreadKeys(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want []KeyHint
	}{
		{`"42"`, nil},
		{`[1]`, nil},
		{`{"result_equal": "4"}`, []KeyHint{{"result_equal", "result_equals"}}},
		{`{"answer": 4, "fiels": {}}`, []KeyHint{{"answer", ""}, {"fiels", "files"}}},
		{`{}`, []KeyHint{}},
	} {
		if diff := cmp.Diff(tc.want, UnreadKeys(json.RawMessage(tc.raw))); diff != "" {
			t.Errorf("UnreadKeys(%s) (-want +got):\n%s", tc.raw, diff)
		}
	}
}

// FuzzUnreadKeys: any expected value yields nil or one hint per key of
// the object, sorted, without panicking.
func FuzzUnreadKeys(f *testing.F) {
	f.Add(`{"result_equal": "4"}`)
	f.Add(`"42"`)
	f.Add(`{"a":1,"a":2}`)
	f.Fuzz(func(t *testing.T, raw string) {
		hints := UnreadKeys(json.RawMessage(raw))
		for i := 1; i < len(hints); i++ {
			if hints[i-1].Key > hints[i].Key {
				t.Fatalf("hints not sorted: %+v", hints)
			}
		}
	})
}
