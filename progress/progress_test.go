package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func TestPlainLines(t *testing.T) {
	var b bytes.Buffer
	r := New(&b, Auto, false, 12)
	r.Done("calc-multiply", 1, "passed", 38*time.Millisecond)
	r.Done("notes/round trip", 2, "error", 1500*time.Millisecond)
	r.Close()
	want := "[ 1/12] passed    calc-multiply (38ms)\n[ 2/12] error     notes/round trip (epoch 2) (1.5s)\n"
	if got := b.String(); got != want {
		t.Errorf("plain output:\n got %q\nwant %q", got, want)
	}
}

func TestBarShowsCounts(t *testing.T) {
	var b bytes.Buffer
	r := New(&b, Bar, false, 3)
	for _, s := range []string{"passed", "failed", "timeout"} {
		r.Done("c", 1, s, time.Millisecond)
	}
	r.Close()
	if out := b.String(); !strings.Contains(out, "passed 1  failed 1  error 1") || !strings.Contains(out, "3/3") {
		t.Errorf("bar output %q lacks the counts", out)
	}
}

func TestNoneAndModes(t *testing.T) {
	var b bytes.Buffer
	r := New(&b, None, true, 1)
	r.Done("c", 1, "passed", 0)
	r.Close()
	if b.Len() != 0 {
		t.Errorf("none wrote %q", b.String())
	}
	if _, err := ParseMode("fancy"); errcode.Code(err) != errcode.Usage {
		t.Errorf("ParseMode(fancy) = %v, want E-EVL-001", err)
	}
}
