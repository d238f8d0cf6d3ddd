package transcript

import (
	"strings"
	"testing"
)

func TestDiverge(t *testing.T) {
	base := func() *Recorder { return record() }
	tests := []struct {
		name  string
		other func() *Recorder
		found bool
		index int
		what  string
	}{
		{"same", base, false, 0, ""},
		{"tool output", func() *Recorder {
			r := New()
			r.Start("m", "sys", []string{"calc"}, "what is 6*7?")
			r.Turn(0, "d0", "tool_call", []byte(`[{"type":"text","text":"computing"},{"type":"tool_call","id":"c1","name":"calc","input":{"e":"6*7"}}]`), "", nil, nil)
			r.ToolResult(0, "c1", "calc", false, "43", "")
			r.Turn(1, "d1x", "end_turn", []byte(`[{"type":"text","text":"43"}]`), "", nil, nil)
			r.End("ok", "43")
			return r
		}, true, 0, "the tool output of calc differs"},
		{"request digest", func() *Recorder {
			r := New()
			r.Start("m", "sys", []string{"calc"}, "what is 6*7?")
			r.Turn(0, "other", "end_turn", []byte(`[{"type":"text","text":"42"}]`), "", nil, nil)
			return r
		}, true, 0, "the request differs"},
		{"answer", func() *Recorder {
			r := New()
			r.Start("m", "sys", []string{"calc"}, "what is 6*7?")
			r.Turn(0, "d0", "end_turn", []byte(`[{"type":"text","text":"42"}]`), "", nil, nil)
			return r
		}, true, 0, "the answer differs (stop reason"},
		{"fewer turns", func() *Recorder {
			r := record()
			r.entries = r.entries[:3]
			return r
		}, true, 1, "the run ended after 1 turns"},
		{"system prompt", func() *Recorder {
			r := New()
			r.Start("m", "other system", []string{"calc"}, "what is 6*7?")
			return r
		}, true, 0, ""},
		{"end only", func() *Recorder {
			r := record()
			r.entries[len(r.entries)-1].ExitStatus = "failed"
			return r
		}, true, 2, "the session's end differs (failed vs ok)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Diverge(Read(tt.other().Encode()), Read(base().Encode()))
			if d.Found != tt.found || (tt.found && d.Index != tt.index) || !strings.HasPrefix(d.What, tt.what) {
				t.Errorf("Diverge = %+v, want found %v at %d, %q", d, tt.found, tt.index, tt.what)
			}
		})
	}
}

// Two runs' system prompts name their own session folders: that alone is
// no divergence.
func TestDivergeIgnoresTheSessionFolder(t *testing.T) {
	in := func(folder string) *Transcript {
		r := record()
		r.entries[0].System = "[Capsule]\nWorkdir: " + folder + "\nsys"
		return Read(r.Encode())
	}
	if d := Diverge(in("/runs/b/sessions/ses_2"), in("/runs/a/sessions/ses_1")); d.Found {
		t.Errorf("Diverge = %+v, want none", d)
	}
}
