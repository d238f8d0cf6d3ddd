package transcript

import (
	"strings"
	"testing"
)

func record() *Recorder {
	r := New()
	r.Start("m", "sys", []string{"calc"}, "what is 6*7?")
	r.Turn(0, "d0", "tool_call", []byte(`[{"type":"text","text":"computing"},{"type":"tool_call","id":"c1","name":"calc","input":{"e":"6*7"}}]`), "", nil, nil)
	r.ToolResult(0, "c1", "calc", false, "42", "")
	r.Turn(1, "d1", "end_turn", []byte(`[{"type":"text","text":"42"}]`), "", nil, nil)
	r.End("ok", "42")
	return r
}

func TestReadBack(t *testing.T) {
	tr := Read(record().Encode())
	if len(tr.Problems) != 0 || len(tr.Attempts) != 1 || tr.Turns() != 2 || tr.End == nil || tr.End.Result != "42" {
		t.Fatalf("read back %+v", tr)
	}
	first := tr.Attempts[0].Turns[0]
	if first.Text != "computing" || len(first.Calls) != 1 || first.Calls[0].ID != "c1" || len(first.Results) != 1 || first.Results[0].Output != "42" {
		t.Errorf("first turn %+v", first)
	}
}

// A hostile file: lines that are not entries are named and skipped,
// entries out of order still show, nothing panics.
func TestReadHostile(t *testing.T) {
	in := strings.Join([]string{
		`{"kind":"tool_result","name":"calc","output":"orphan"}`,
		`not json`,
		`{"kind":"mystery"}`,
		`{"kind":"turn","content":"not an array"}`,
		`{"kind":"end","exit_status":"ok","result":"<script>alert(1)</script>"}`,
		``,
	}, "\n")
	tr := Read([]byte(in))
	if len(tr.Problems) != 2 || !strings.HasPrefix(tr.Problems[0], "line 2:") || !strings.HasPrefix(tr.Problems[1], "line 3:") {
		t.Errorf("problems %q", tr.Problems)
	}
	if tr.Turns() != 2 || tr.Attempts[0].Turns[0].Results[0].Output != "orphan" || tr.End.Result != "<script>alert(1)</script>" {
		t.Errorf("read %+v", tr)
	}
	many := strings.Repeat("x\n", 1000)
	if got := len(Read([]byte(many)).Problems); got != maxProblems {
		t.Errorf("%d problems kept, want %d", got, maxProblems)
	}
}

func FuzzRead(f *testing.F) {
	f.Add(record().Encode())
	f.Add([]byte(`{"kind":"tool_result"}` + "\n" + `{"kind":"turn","content":[{"type":"tool_call"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr := Read(data)
		_ = Diverge(tr, Read(record().Encode()))
		_ = Diverge(tr, tr)
		if d := Diverge(tr, tr); d.Found {
			t.Errorf("a transcript diverges from itself: %+v", d)
		}
	})
}
