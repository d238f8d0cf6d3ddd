package reports

import (
	"bytes"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// FuzzParseJudgeLabels: any input is labels or an E-EVL-009 / E-IO error,
// never a panic; every label parsed is found again by Lookup with its
// verdict, and has a non-blank case and scorer.
func FuzzParseJudgeLabels(f *testing.F) {
	for _, s := range []string{
		`{"case_id": "a", "scorer": "s", "label": "pass"}`,
		`{"case_id": "a", "scorer": "s", "label": "fail", "epoch": 2}` + "\n" + `{"case_id": "a", "scorer": "s", "label": "pass"}`,
		"\xef\xbb\xbf{\"case_id\": \"\\u00e9\", \"scorer\": \"s\", \"label\": \"pass\"}\r\n\n",
		`{"case_id": "a", "scorer": "s", "label": "pass", "epoch": 1e3}`,
		`[1, 2]`, `null`, `{"case_id": null}`, "{\"case_id\":\"a\",\"scorer\":\"s\",\"label\":\"pass\",\"epoch\":-1}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseJudgeLabels("f.jsonl", bytes.NewReader(data))
		if err != nil {
			if c := errcode.Code(err); c != errcode.JudgeLabels && c != errcode.IO {
				t.Fatalf("code %q: %v", c, err)
			}
			return
		}
		if len(l.Labels) == 0 {
			t.Fatal("no labels and no error")
		}
		for _, lab := range l.Labels {
			if lab.CaseID == "" || lab.Scorer == "" || lab.Epoch < 0 {
				t.Fatalf("bad label %+v", lab)
			}
			epoch := max(lab.Epoch, 1)
			pass, ok := l.Lookup(lab.CaseID, lab.Scorer, epoch)
			if lab.Epoch > 0 && (!ok || pass != lab.Pass) {
				t.Fatalf("Lookup of %+v = %t, %t", lab, pass, ok)
			}
		}
	})
}
