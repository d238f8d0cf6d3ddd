package scoring

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzParseExpected: the expected field is untrusted dataset input. Parsing
// never panics, and whatever parses scores an answer without panicking and
// within [0, 1].
func FuzzParseExpected(f *testing.F) {
	for _, s := range []string{
		`{"result_contains": "42"}`,
		`{"result_equals": "x", "result_matches": "^a+$", "result_json": {"a": [1, {"b": null}]}}`,
		`{"files": {"a/b.txt": {"contains": ["x"], "sha256": "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"}, "c": false}}`,
		`{"check": {"command": ["make", "test"], "timeout_seconds": 1.5}}`,
		`{"result_json": {"n": 1e400}}`,
		`"42"`, `null`, `{"x": 1}`,
	} {
		f.Add([]byte(s), `{"a": 1, "n": 1e400}`)
	}
	f.Fuzz(func(t *testing.T, raw []byte, answer string) {
		e, ok, err := ParseExpected(json.RawMessage(raw))
		if err != nil || !ok {
			return
		}
		for _, s := range e.resultScores(answer) {
			if s.Value < 0 || s.Value > 1 || (s.Pass && s.Value != 1) {
				t.Fatalf("score %+v out of range", s)
			}
		}
		for _, n := range e.Names() {
			if n == "" {
				t.Fatalf("empty scorer name from %q", raw)
			}
		}
	})
}

// FuzzParseTrace: a trace file is read back from disk; it never panics, and
// what SummarizeTrace gets line by line agrees with ParseTrace.
func FuzzParseTrace(f *testing.F) {
	f.Add([]byte(traceTypical))
	f.Add([]byte(traceReopened))
	f.Add([]byte("{\"event_type\":\"session_end\",\"exit_status\":\"ok\"}\r\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseTrace(bytes.NewReader(data))
		if err != nil || bytes.Contains(data, []byte("\r")) {
			return
		}
		var lines [][]byte
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				lines = append(lines, l)
			}
		}
		s2, err := SummarizeTrace(lines)
		if err != nil || s2.ExitStatus != s.ExitStatus || len(s2.Observed) != len(s.Observed) {
			t.Fatalf("SummarizeTrace = %+v, %v; ParseTrace = %+v", s2, err, s)
		}
	})
}

// FuzzReadEvalRecords: eval.jsonl files are read back from session folders
// that a capsule's tools could write into. Reading never panics, and what
// EvalRecords writes always reads back.
func FuzzReadEvalRecords(f *testing.F) {
	f.Add([]byte(`{"event_type":"session_end","reason":"r","record_type":"event_score","result":"pass","score":1.0,"scorer":"s","ts":1,"turn":2}`), "case", 0.5)
	f.Add([]byte(`{"record_type":"dataset_run","ts":1,"overall":"pass","scores":{"a":1}}`), "c\n\"x", 1.0)
	f.Fuzz(func(t *testing.T, data []byte, caseID string, value float64) {
		_, _ = ReadEvalRecords(bytes.NewReader(data))
		if value != value || value < 0 || value > 1 {
			return
		}
		out := EvalRecords([]Score{{Name: caseID, Type: TypeCheck, Value: value, Reason: string(data)}}, caseID, &caseID, 3, 4)
		recs, err := ReadEvalRecords(bytes.NewReader(out))
		if err != nil || len(recs) != 2 {
			t.Fatalf("EvalRecords output does not read back: %v\n%s", err, out)
		}
	})
}
