package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/internal/termtext"
)

// TestPlainEscapesCaseIDs: a case id with a clear-screen sequence and a
// carriage return is printed escaped, on its own line (issue 13).
func TestPlainEscapesCaseIDs(t *testing.T) {
	var b bytes.Buffer
	r := New(&b, Plain, false, 2)
	r.Done("evil\x1b[2J\rpassed   fake\nline", 1, "failed", time.Millisecond)
	r.Done("bidi\u202eexe.md", 3, "passed", time.Millisecond)
	r.Close()
	want := `[1/2] failed    evil\u001b[2J\rpassed   fake\nline (1ms)` + "\n" +
		`[2/2] passed    bidi\u202eexe.md (epoch 3) (1ms)` + "\n"
	if got := b.String(); got != want {
		t.Errorf("plain output:\n got %q\nwant %q", got, want)
	}
}

// TestBarDrawsUnderTheEscapingWriter: the bar's own escape sequences reach
// the terminal when stderr is a termtext.Writer, and the case id never does.
func TestBarDrawsUnderTheEscapingWriter(t *testing.T) {
	var raw bytes.Buffer
	r := New(termtext.NewWriter(&raw), Bar, false, 1)
	r.Done("evil\x1b[2J", 1, "passed", time.Millisecond)
	r.Close()
	out := raw.String()
	if strings.Contains(out, "\x1b[2J") || strings.Contains(out, "evil") {
		t.Errorf("the case id reached the bar's output: %q", out)
	}
	if !strings.Contains(out, "1/1") || strings.Contains(out, `\u001b`) {
		t.Errorf("bar output %q: want the counts drawn with raw escape sequences, not escaped ones", out)
	}
}
