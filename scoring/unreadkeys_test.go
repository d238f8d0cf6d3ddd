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
