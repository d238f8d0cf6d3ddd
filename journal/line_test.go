package journal

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestMarshalledRecordLineIsJSONMarshal: an entry whose record is
// json.Marshal's output is written as the very bytes json.Marshal of the
// whole entry gives, odd case ids and HTML characters included.
func TestMarshalledRecordLineIsJSONMarshal(t *testing.T) {
	type rec struct {
		Text string          `json:"text"`
		Raw  json.RawMessage `json:"raw"`
		N    []int           `json:"n"`
	}
	tests := []struct {
		name   string
		caseID string
		epoch  int
		rec    any
	}{
		{"plain", "case-1", 1, rec{Text: "ok", Raw: json.RawMessage(`{ "a" : 1 }`), N: []int{1, 2}}},
		{"html and unicode", "a<b>&\u2028\"q\"", 3, rec{Text: "<script>&\u2029 \xff", Raw: json.RawMessage(`"<>"`)}},
		{"negative epoch", "x", -2, map[string]any{"k": []string{"v\n", "\t"}}},
		{"scalar record", "y", 0, 42},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.rec)
			if err != nil {
				t.Fatal(err)
			}
			e := Entry{CaseID: tt.caseID, Epoch: tt.epoch, Attempt: 2, Record: b}
			want, err := appendLine(nil, e)
			if err != nil {
				t.Fatal(err)
			}
			if whole, _ := json.Marshal(e); !bytes.Equal(want, append(whole, '\n')) {
				t.Fatalf("the slow path is not json.Marshal: %s", want)
			}
			e.Marshalled = true
			got, err := appendLine([]byte("prefix\n"), e)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, append([]byte("prefix\n"), want...)) {
				t.Fatalf("line = %s, want %s", got, want)
			}
		})
	}
}
