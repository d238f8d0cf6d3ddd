package reports

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestParseJudgeLabels: good files give their labels; each bad line is
// E-EVL-009 at file:line, naming the field.
func TestParseJudgeLabels(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []JudgeLabel
		errCode string
		errHas  []string // substrings of the error
	}{
		{name: "two labels, a blank line, a BOM and notes",
			in: "\xef\xbb\xbf" + `{"case_id": "a", "scorer": "helpful", "label": "pass", "note": "clear"}` + "\n\n" +
				`{"case_id": "b", "scorer": "helpful", "label": "fail", "epoch": 2}` + "\r\n",
			want: []JudgeLabel{{CaseID: "a", Scorer: "helpful", Pass: true, Line: 1}, {CaseID: "b", Scorer: "helpful", Epoch: 2, Line: 3}}},
		{name: "one epoch and every epoch of a case",
			in:   `{"case_id": "a", "scorer": "s", "label": "pass"}` + "\n" + `{"case_id": "a", "scorer": "s", "label": "fail", "epoch": 2}`,
			want: []JudgeLabel{{CaseID: "a", Scorer: "s", Pass: true, Line: 1}, {CaseID: "a", Scorer: "s", Epoch: 2, Line: 2}}},
		{name: "null epoch is every epoch", in: `{"case_id": "a", "scorer": "s", "label": "fail", "epoch": null}`,
			want: []JudgeLabel{{CaseID: "a", Scorer: "s", Line: 1}}},
		{name: "empty", in: "\n  \n", errCode: errcode.JudgeLabels, errHas: []string{"labels.jsonl: no label in the file"}},
		{name: "not an object", in: `["a"]`, errCode: errcode.JudgeLabels, errHas: []string{"labels.jsonl:1: line is not a JSON object"}},
		{name: "bad JSON", in: "{\"case_id\": \"a\",", errCode: errcode.JudgeLabels, errHas: []string{"labels.jsonl:1: invalid JSON"}},
		{name: "missing case_id", in: `{"scorer": "s", "label": "pass"}`, errCode: errcode.JudgeLabels, errHas: []string{`labels.jsonl:1: missing "case_id"`}},
		{name: "blank scorer", in: `{"case_id": "a", "scorer": " ", "label": "pass"}`, errCode: errcode.JudgeLabels, errHas: []string{`"scorer" is blank`}},
		{name: "case_id a number", in: `{"case_id": 7, "scorer": "s", "label": "pass"}`, errCode: errcode.JudgeLabels, errHas: []string{`"case_id" is a JSON number, not a string`}},
		{name: "label yes", in: `{"case_id": "a", "scorer": "s", "label": "yes"}`, errCode: errcode.JudgeLabels, errHas: []string{`"label" is "yes", not "pass" or "fail"`}},
		{name: "label PASS", in: `{"case_id": "a", "scorer": "s", "label": "PASS"}`, errCode: errcode.JudgeLabels, errHas: []string{`"label" is "PASS"`}},
		{name: "label missing", in: `{"case_id": "a", "scorer": "s"}`, errCode: errcode.JudgeLabels, errHas: []string{`missing "label"`}},
		{name: "epoch zero", in: `{"case_id": "a", "scorer": "s", "label": "pass", "epoch": 0}`, errCode: errcode.JudgeLabels, errHas: []string{`"epoch" is 0, not a positive integer`}},
		{name: "epoch a string", in: `{"case_id": "a", "scorer": "s", "label": "pass", "epoch": "1"}`, errCode: errcode.JudgeLabels, errHas: []string{`"epoch" is "1"`}},
		{name: "epoch a fraction", in: `{"case_id": "a", "scorer": "s", "label": "pass", "epoch": 1.5}`, errCode: errcode.JudgeLabels, errHas: []string{`"epoch" is 1.5`}},
		{name: "duplicate", in: `{"case_id": "a", "scorer": "s", "label": "pass"}` + "\n" + `{"case_id": "a", "scorer": "s", "label": "fail"}`,
			errCode: errcode.JudgeLabels, errHas: []string{`labels.jsonl:2: a second label for case "a", scorer "s", every epoch (first on line 1)`}},
		{name: "duplicate epoch", in: `{"case_id": "a", "scorer": "s", "label": "pass", "epoch": 3}` + "\n" + `{"case_id": "a", "scorer": "s", "label": "pass", "epoch": 3}`,
			errCode: errcode.JudgeLabels, errHas: []string{`labels.jsonl:2: a second label for case "a", scorer "s", epoch 3`}},
		{name: "every bad line reported", in: "x\n" + `{"case_id": "a", "scorer": "s", "label": "pass"}` + "\ny\n",
			errCode: errcode.JudgeLabels, errHas: []string{"labels.jsonl:1:", "labels.jsonl:3:"}},
		{name: "more bad lines than listed", in: strings.Repeat("x\n", maxLabelErrors+5), errCode: errcode.JudgeLabels, errHas: []string{"... and 5 more bad lines"}},
		{name: "line too long", in: `{"case_id": "a", "scorer": "s", "label": "pass"}` + "\n" + `{"case_id": "` + strings.Repeat("a", MaxJudgeLabelLine) + `"}`,
			errCode: errcode.JudgeLabels, errHas: []string{"labels.jsonl:2: line longer than 64 KiB"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseJudgeLabels("labels.jsonl", strings.NewReader(tt.in))
			if tt.errCode != "" {
				if err == nil {
					t.Fatalf("got %+v, want error %s", got.Labels, tt.errCode)
				}
				if c := errcode.Code(err); c != tt.errCode {
					t.Errorf("code %q, want %q (%v)", c, tt.errCode, err)
				}
				for _, s := range tt.errHas {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not say %q", err, s)
					}
				}
				var e *errcode.Error
				if errors.As(err, &e) && e.Hint == "" {
					t.Errorf("error %q has no hint", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Labels); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseJudgeLabelsTooLarge: a file past MaxJudgeLabelsBytes is refused
// whole, without reading past the bound.
func TestParseJudgeLabelsTooLarge(t *testing.T) {
	line := `{"case_id": "a", "scorer": "s", "label": "pass"}` + strings.Repeat(" ", 1000) + "\n"
	r := &countingReader{r: strings.NewReader(strings.Repeat(line, MaxJudgeLabelsBytes/len(line)+10))}
	_, err := ParseJudgeLabels("big.jsonl", r)
	if c := errcode.Code(err); c != errcode.JudgeLabels || !strings.Contains(err.Error(), "big.jsonl: file larger than 64 MiB") {
		t.Fatalf("err %v (code %q), want E-EVL-009 file larger", err, c)
	}
	if r.n > MaxJudgeLabelsBytes+1 {
		t.Errorf("read %d bytes, past the bound %d", r.n, MaxJudgeLabelsBytes)
	}
}

// TestJudgeLabelsLookup: an epoch's own label comes before the case's
// label for every epoch.
func TestJudgeLabelsLookup(t *testing.T) {
	l, err := ParseJudgeLabels("l", strings.NewReader(`{"case_id": "a", "scorer": "s", "label": "pass"}
{"case_id": "a", "scorer": "s", "label": "fail", "epoch": 2}
{"case_id": "b", "scorer": "s", "label": "fail", "epoch": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		caseID, scorer string
		epoch          int32
		pass, ok       bool
	}{
		{"a", "s", 1, true, true},
		{"a", "s", 2, false, true},
		{"a", "s", 3, true, true},
		{"b", "s", 1, false, true},
		{"b", "s", 2, false, false},
		{"a", "other", 1, false, false},
		{"c", "s", 1, false, false},
	} {
		pass, ok := l.Lookup(tt.caseID, tt.scorer, tt.epoch)
		if pass != tt.pass || ok != tt.ok {
			t.Errorf("Lookup(%q, %q, %d) = %t, %t; want %t, %t", tt.caseID, tt.scorer, tt.epoch, pass, ok, tt.pass, tt.ok)
		}
	}
	var none *JudgeLabels
	if _, ok := none.Lookup("a", "s", 1); ok {
		t.Error("nil labels found a label")
	}
}

type countingReader struct {
	r interface{ Read([]byte) (int, error) }
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
