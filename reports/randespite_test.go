package reports

import (
	"bytes"
	"strings"
	"testing"
)

// TestRanDespiteLine: a run --run-anyway let through what would have
// refused it says so in the terminal summary and summary.md, naming the
// codes once each; a run without says nothing.
func TestRanDespiteLine(t *testing.T) {
	for _, tt := range []struct {
		name  string
		codes []string
		want  string
	}{
		{"none", nil, ""},
		{"one", []string{"E-EVL-081"}, "ran despite E-EVL-081 (--run-anyway): what would have refused the run was let through"},
		{"repeated", []string{"E-EVL-007", "E-EVL-007", "E-EVL-080"}, "ran despite E-EVL-007, E-EVL-080 (--run-anyway)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := &Digest{RanDespite: tt.codes, Statuses: map[string]int{}}
			var text, md bytes.Buffer
			if err := d.WriteText(&text, nil); err != nil {
				t.Fatal(err)
			}
			if err := d.WriteMarkdown(&md); err != nil {
				t.Fatal(err)
			}
			for name, out := range map[string]string{"text": text.String(), "markdown": md.String()} {
				if tt.want == "" {
					if strings.Contains(out, "ran despite") || strings.Contains(out, "Ran despite") {
						t.Errorf("%s: a line for a run without refusals:\n%s", name, out)
					}
					continue
				}
				if !strings.Contains(strings.ToLower(out), strings.ToLower(tt.want)) {
					t.Errorf("%s does not hold %q:\n%s", name, tt.want, out)
				}
			}
		})
	}
}
