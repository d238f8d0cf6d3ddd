package scoring

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEvalRecordsMatchMurmur: murmur's documented example (murmur-session.md
// §5.2), byte for byte, from murmur's typical trace.
func TestEvalRecordsMatchMurmur(t *testing.T) {
	plan := &Plan{Config: Config{Scorers: []ScorerSpec{
		{Type: TypeExitOK, Name: "success_check"},
		{Type: TypeMaxTurns, Name: "turn_limit", Max: 5},
	}}}
	tr := mustTrace(t, traceTypical)
	scores, err := plan.Score(context.Background(), Input{CaseID: "case_001", Trace: tr})
	if err != nil {
		t.Fatal(err)
	}
	ds := "my-ds"
	got := string(EvalRecords(scores, "case_001", &ds, tr.TotalTurns, tr.EndedAt))
	want := `{"event_type":"session_end","reason":"exit_status=ok","record_type":"event_score","result":"pass","score":1.0,"scorer":"success_check","ts":1778161473790,"turn":2}
{"event_type":"session_end","reason":"turns=2 max=5","record_type":"event_score","result":"pass","score":1.0,"scorer":"turn_limit","ts":1778161473790,"turn":2}
{"case_id":"case_001","dataset_id":"my-ds","overall":"pass","record_type":"dataset_run","scores":{"success_check":1.0,"turn_limit":1.0},"ts":1778161473790}
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("eval.jsonl (-murmur +got):\n%s", diff)
	}
}

func TestEvalRecordsParseAsMurmurs(t *testing.T) {
	scores := []Score{
		{Name: "seq", Type: TypeToolSequence, Value: 2.0 / 3, Reason: `observed=["a"] expected=["a", "<b>&"]`},
		{Name: "check", Type: TypeCheck, Pass: true, Value: 1, Reason: "exit status 0"},
	}
	out := EvalRecords(scores, "notes/round trip", nil, 3, 99)
	if !bytes.Contains(out, []byte(`"score":0.6666666666666666`)) || !bytes.Contains(out, []byte(`<b>&`)) || !bytes.Contains(out, []byte(`"dataset_id":null`)) {
		t.Errorf("eval.jsonl:\n%s\nwant a shortest float, unescaped <>& and a null dataset_id", out)
	}
	recs, err := ReadEvalRecords(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("murmur's reader rejects our eval.jsonl: %v", err)
	}
	if len(recs) != 3 || recs[0].Result != Fail || recs[1].Result != Pass || recs[2].Overall != OverallFail ||
		recs[2].Scores["seq"] != 2.0/3 || *recs[2].CaseID != "notes/round trip" {
		t.Errorf("records read back: %+v", recs)
	}
	// An empty score list still has its dataset_run, with no_scores.
	recs, err = ReadEvalRecords(bytes.NewReader(EvalRecords(nil, "c", nil, 0, 1)))
	if err != nil || len(recs) != 1 || recs[0].Overall != OverallNoScores {
		t.Errorf("no scores: %+v, %v", recs, err)
	}
}

func TestReadEvalRecordsRules(t *testing.T) {
	for _, line := range []string{
		`[]`,
		`{"ts":1,"overall":"pass","scores":{}}`,
		`{"record_type":"other","ts":1}`,
		`{"record_type":"event_score","ts":1,"turn":1,"event_type":"session_end","scorer":"x"}`,
		`{"record_type":"dataset_run","ts":1,"overall":"pass"}`,
		`{"record_type":"dataset_run","ts":"1","overall":"pass","scores":{}}`,
	} {
		if _, err := ReadEvalRecords(strings.NewReader("\n" + line + "\n")); err == nil || !strings.Contains(err.Error(), "eval.jsonl:2:") {
			t.Errorf("ReadEvalRecords(%s) = %v, want an error at eval.jsonl:2", line, err)
		}
	}
}

func TestWriteEvalFileTruncates(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, EvalFile)
	if err := os.WriteFile(path, bytes.Repeat([]byte("old\n"), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteEvalFile(dir, []Score{{Name: "exit_ok", Pass: true, Value: 1}}, "c", nil, 1, 2); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	var first map[string]any
	if err := json.Unmarshal(bytes.SplitN(data, []byte("\n"), 2)[0], &first); err != nil || first["scorer"] != "exit_ok" {
		t.Errorf("eval.jsonl after rewrite: %q", data)
	}
}

// evalRecordsMaps is EvalRecords as it was written with maps, which Go's
// encoder sorts: the reference the struct version must match byte for
// byte.
func evalRecordsMaps(scores []Score, caseID string, datasetID *string, turn, ts int64) []byte {
	var b bytes.Buffer
	line := func(v map[string]any) {
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v)
	}
	byName := map[string]json.RawMessage{}
	for _, s := range scores {
		line(map[string]any{"event_type": "session_end", "reason": s.Reason, "record_type": "event_score",
			"result": s.Result(), "score": rustFloat(s.Value), "scorer": s.Name, "ts": ts, "turn": turn})
		byName[s.Name] = rustFloat(s.Value)
	}
	var ds any
	if datasetID != nil {
		ds = *datasetID
	}
	line(map[string]any{"case_id": caseID, "dataset_id": ds, "overall": Overall(scores),
		"record_type": "dataset_run", "scores": byName, "ts": ts})
	return b.Bytes()
}

func TestEvalRecordsSameAsMaps(t *testing.T) {
	ds := "d<&>\u2028\"\u2028"
	tests := []struct {
		name   string
		scores []Score
		ds     *string
	}{
		{name: "none"},
		{name: "one", scores: []Score{{Name: "exit_ok", Pass: true, Value: 1, Reason: "exit_status=ok"}}, ds: &ds},
		{name: "odd text", scores: []Score{
			{Name: "a\u2029<b>", Value: 0.25, Reason: "\x00\t\"quoted\" \u00e9 \xff"},
			{Name: "a\u2029<b>", Pass: true, Value: 1e-7, Reason: "dup name"},
			{Name: "z", Value: 2.0 / 3},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(EvalRecords(tt.scores, "c<1>", tt.ds, 7, 1778161473790))
			want := string(evalRecordsMaps(tt.scores, "c<1>", tt.ds, 7, 1778161473790))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("EvalRecords (-maps +structs):\n%s", diff)
			}
		})
	}
}
