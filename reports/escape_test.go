package reports

import (
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// hostile is a case id that would clear the screen, rewrite its line, and
// reverse what follows if it reached a terminal raw (issue 13).
const hostile = "evil\x1b[2J\rpassed\u202egnp\u009b31m"

// noControls fails when s holds a control character other than the
// newlines and tabs of the layout.
func noControls(t *testing.T, what, s string) {
	t.Helper()
	for _, r := range s {
		if r != '\n' && r != '\t' && (unicode.IsControl(r) || r >= 0x202a && r <= 0x202e) {
			t.Fatalf("%s holds %U:\n%q", what, r, s)
		}
	}
}

func TestSummaryTextEscapesCaseIDs(t *testing.T) {
	var s Summary
	code, stage, msg := errcode.ProviderRejected, "loop", "anthropic: HTTP 307: redirects to \"http://x/\x1b]52;c;aGk=\x07\""
	s.Add(ResultRow{CaseID: hostile, Status: StatusFailed, DurationMS: 5})
	s.Add(ResultRow{CaseID: hostile + "-2", Status: StatusError, DurationMS: 5, ErrorCode: &code, ErrorStage: &stage, ErrorMessage: &msg})
	var b strings.Builder
	if err := s.WriteText(&b, "runs/r\x1b[2J/results.parquet", "", time.Second); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	noControls(t, "summary", out)
	if !strings.Contains(out, `evil\u001b[2J\rpassed\u202egnp\u009b31m`) {
		t.Errorf("summary lacks the escaped id:\n%s", out)
	}
}

func TestDiffTextEscapesCaseIDsAndPaths(t *testing.T) {
	base, head := &RunData{Path: "base\x1b[2J"}, &RunData{Path: "head"}
	addCase(base, "run\rbase", hostile, true)
	addCase(head, "run_head", hostile, false)
	addCase(head, "run_head", hostile+"-new", false)
	var b strings.Builder
	if err := Diff(base, head, DiffOptions{Alpha: 0.05}).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	noControls(t, "diff", out)
	if !strings.Contains(out, `evil\u001b[2J`) || !strings.Contains(out, `base\u001b[2J`) || !strings.Contains(out, `run\rbase`) {
		t.Errorf("diff lacks the escaped id, path or run id:\n%s", out)
	}
}
