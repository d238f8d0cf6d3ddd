package scoring

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResultScorers(t *testing.T) {
	tests := []struct {
		name     string
		expected string
		result   string
		want     []Score
	}{
		{"contains", `{"result_contains": "42"}`, "6 times 7 is 42.",
			[]Score{{"result_contains", "result_contains", true, 1, `result contains "42"`, false, false, nil}}},
		{"contains misses", `{"result_contains": "42"}`, "6 times 7 is 41.",
			[]Score{{"result_contains", "result_contains", false, 0, `result lacks "42" (0 of 1 found) in "6 times 7 is 41."`, false, false, nil}}},
		{"contains a list, partly", `{"result_contains": ["30 euros", "15"]}`, "It is 30 euros.",
			[]Score{{"result_contains", "result_contains", false, 0.5, `result lacks "15" (1 of 2 found) in "It is 30 euros."`, false, false, nil}}},
		{"contains misses in an empty answer", `{"result_contains": "Echoed"}`, "",
			[]Score{{"result_contains", "result_contains", false, 0, `result lacks "Echoed" (0 of 1 found) in ""`, false, false, nil}}},
		{"contains quotes a long answer cut, with its length", `{"result_contains": "Echoed"}`, strings.Repeat("ab", 100),
			[]Score{{"result_contains", "result_contains", false, 0,
				`result lacks "Echoed" (0 of 1 found) in "` + strings.Repeat("ab", 59) + `a…" (200 runes)`, false, false, nil}}},
		{"contains escapes newlines, controls and bidi overrides", `{"result_contains": "ok"}`, "line 1\nline\t2\x1b[31m\u202egnp.exe\xff",
			[]Score{{"result_contains", "result_contains", false, 0,
				`result lacks "ok" (0 of 1 found) in "line 1\nline\t2\x1b[31m\u202egnp.exe\xff"`, false, false, nil}}},
		{"equals quotes a long answer cut, with its length", `{"result_equals": "42"}`, strings.Repeat("é", 300),
			[]Score{{"result_equals", "result_equals", false, 0, `result "` + strings.Repeat("é", 119) + `…" (300 runes), want "42"`, false, false, nil}}},
		{"equals trims whitespace", `{"result_equals": "42"}`, "  42\n",
			[]Score{{"result_equals", "result_equals", true, 1, `result equals "42"`, false, false, nil}}},
		{"equals differs", `{"result_equals": "42"}`, "42.0",
			[]Score{{"result_equals", "result_equals", false, 0, `result "42.0", want "42"`, false, false, nil}}},
		{"matches", `{"result_matches": "(?i)^the answer is \\d+\\.$"}`, "The answer is 42.",
			[]Score{{"result_matches", "result_matches", true, 1, `result matches /(?i)^the answer is \d+\.$/`, false, false, nil}}},
		{"does not match", `{"result_matches": "^\\d+$"}`, "forty-two",
			[]Score{{"result_matches", "result_matches", false, 0, `result "forty-two" does not match /^\d+$/`, false, false, nil}}},
		{"json holds fields", `{"result_json": {"total": 42, "unit": "eur", "items": [{"id": 1}], "meta": {"ok": true}}}`,
			`{"total": 42.0, "unit": "eur", "items": [{"id": 1, "name": "x"}], "meta": {"ok": true, "extra": null}, "more": 1}`,
			[]Score{{"result_json", "result_json", true, 1, "result holds all 4 fields", false, false, nil}}},
		{"json partly", `{"result_json": {"total": 42, "unit": "eur", "n": null}}`, `{"total": 41, "unit": "eur"}`,
			[]Score{{"result_json", "result_json", false, 1.0 / 3, `field "n" missing (1 of 3 fields hold)`, false, false, nil}}},
		{"json wrong value", `{"result_json": {"total": 42}}`, `{"total": "42"}`,
			[]Score{{"result_json", "result_json", false, 0, `field "total" is "42", want 42 (0 of 1 fields hold)`, false, false, nil}}},
		{"json array length differs", `{"result_json": {"a": [1, 2]}}`, `{"a": [1, 2, 3]}`,
			[]Score{{"result_json", "result_json", false, 0, `field "a" is [1,2,3], want [1,2] (0 of 1 fields hold)`, false, false, nil}}},
		{"not json", `{"result_json": {}}`, "Sure! {\"a\": 1}",
			[]Score{{"result_json", "result_json", false, 0, `result is not a JSON object: "Sure! {\"a\": 1}"`, false, false, nil}}},
		{"two json values are not one", `{"result_json": {}}`, `{} {}`,
			[]Score{{"result_json", "result_json", false, 0, `result is not a JSON object: "{} {}"`, false, false, nil}}},
		{"big integers compare exactly", `{"result_json": {"n": 9007199254740993}}`, `{"n": 9007199254740992}`,
			[]Score{{"result_json", "result_json", false, 0, `field "n" is 9007199254740992, want 9007199254740993 (0 of 1 fields hold)`, false, false, nil}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok, err := ParseExpected(json.RawMessage(tt.expected))
			if err != nil || !ok {
				t.Fatalf("ParseExpected: %v %v", ok, err)
			}
			if diff := cmp.Diff(tt.want, e.resultScores(tt.result)); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWithOutput: a check's last line of output joins its reason escaped
// (colours, a carriage return, a bidi override, a byte that is not UTF-8)
// and cut; quotes and backslashes stay as they are.
func TestWithOutput(t *testing.T) {
	for _, tc := range []struct {
		last, want string
	}{
		{"", "exit status 1"},
		{"expected 42, got 41", "exit status 1: expected 42, got 41"},
		{`"quoted" \ path`, `exit status 1: "quoted" \ path`},
		{"\x1b[31mred\x1b[0m\rover\u202eevil\xffé", `exit status 1: \x1b[31mred\x1b[0m\rover\u202eevil\xffé`},
		{strings.Repeat("x", 300), "exit status 1: " + strings.Repeat("x", 199) + "…"},
	} {
		if got := withOutput("exit status 1", tc.last); got != tc.want {
			t.Errorf("withOutput(%q) = %q, want %q", tc.last, got, tc.want)
		}
	}
}
