package scoring

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"
)

// Conformance tests named after murmur's integration tests
// (crates/murmur-cli/tests/<file>.rs::<function>); the table in
// docs/murmur-compatibility.md lists every row.

// showRecord is what `mur eval show` decodes of a line (eval.rs: an enum
// tagged by record_type, event_score or dataset_run; unknown types fail).
type showRecord struct {
	RecordType string             `json:"record_type"`
	TS         *uint64            `json:"ts"`
	Turn       *uint32            `json:"turn"`
	EventType  *string            `json:"event_type"`
	Scorer     *string            `json:"scorer"`
	Result     *string            `json:"result"`
	Score      *float64           `json:"score"`
	Overall    *string            `json:"overall"`
	Scores     map[string]float64 `json:"scores"`
}

// readShow decodes eval.jsonl as show does, failing on what show refuses.
func readShow(t *testing.T, data []byte) (events []showRecord, run *showRecord) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var r showRecord
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		switch r.RecordType {
		case "event_score":
			if r.TS == nil || r.Turn == nil || r.EventType == nil || r.Scorer == nil || r.Result == nil {
				t.Fatalf("event_score lacks a field show requires: %s", sc.Text())
			}
			events = append(events, r)
		case "dataset_run":
			if r.TS == nil || r.Overall == nil || r.Scores == nil {
				t.Fatalf("dataset_run lacks a field show requires: %s", sc.Text())
			}
			run = &r
		default:
			t.Fatalf("show refuses record_type %q", r.RecordType)
		}
	}
	return events, run
}

// eval_cmd.rs::show_json_output_is_valid_json, show_json_fail_session_overall_fail,
// show_no_scorer_events_handles_gracefully, show_single_scorer_shows_pass_rate:
// the eval.jsonl murmur-eval writes in each session decodes under show's
// record model, and its overall is show's (fail if any scorer failed,
// pass if all passed, no_scores with none).
func TestMurmur_show_json_output_is_valid_json(t *testing.T) {
	ds := "qs"
	for _, tc := range []struct {
		scores []Score
		want   string
	}{
		{[]Score{{Name: "exit_ok", Pass: true, Value: 1}, {Name: "result_contains", Pass: true, Value: 1}}, "pass"},
		{[]Score{{Name: "exit_ok", Pass: true, Value: 1}, {Name: "file", Pass: false, Value: 0.5, Reason: "<missing> & more"}}, "fail"},
		{nil, "no_scores"},
	} {
		events, run := readShow(t, EvalRecords(tc.scores, "c1", &ds, 3, 1700000000000))
		if len(events) != len(tc.scores) || run == nil || *run.Overall != tc.want {
			t.Errorf("scores %+v: %d events, run %+v; want overall %s", tc.scores, len(events), run, tc.want)
			continue
		}
		for i, s := range tc.scores {
			if *events[i].Scorer != s.Name || *events[i].Result != s.Result() || *events[i].Turn != 3 || run.Scores[s.Name] != s.Value {
				t.Errorf("event %d = %+v for %+v", i, events[i], s)
			}
		}
	}
}
