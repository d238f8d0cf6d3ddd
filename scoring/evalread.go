package scoring

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// EvalRecord is one line of an eval.jsonl as `mur eval show` reads it.
type EvalRecord struct {
	RecordType string // event_score or dataset_run
	// event_score
	TS        int64
	Turn      int64
	EventType string
	Scorer    string
	Result    string
	Score     *float64
	Reason    *string
	// dataset_run
	CaseID    *string
	DatasetID *string
	Overall   string
	Scores    map[string]float64
}

// ReadEvalRecords reads an eval.jsonl with the rules of murmur's `mur eval
// show` (murmur-session.md §5.4): every non-blank line is an object with a
// known record_type; event_score needs ts, turn, event_type, scorer and
// result (score and reason optional); dataset_run needs ts, overall and
// scores. Any other line is an error naming its line.
func ReadEvalRecords(r io.Reader) ([]EvalRecord, error) {
	var out []EvalRecord
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		rec, err := parseEvalRecord(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", EvalFile, n, err)
		}
		out = append(out, rec)
	}
	return out, sc.Err()
}

func parseEvalRecord(line []byte) (EvalRecord, error) {
	var f struct {
		RecordType *string             `json:"record_type"`
		TS         *int64              `json:"ts"`
		Turn       *int64              `json:"turn"`
		EventType  *string             `json:"event_type"`
		Scorer     *string             `json:"scorer"`
		Result     *string             `json:"result"`
		Score      *float64            `json:"score"`
		Reason     *string             `json:"reason"`
		CaseID     *string             `json:"case_id"`
		DatasetID  *string             `json:"dataset_id"`
		Overall    *string             `json:"overall"`
		Scores     *map[string]float64 `json:"scores"`
	}
	if err := json.Unmarshal(line, &f); err != nil || line[0] != '{' {
		return EvalRecord{}, fmt.Errorf("not a JSON object of a known shape")
	}
	if f.RecordType == nil {
		return EvalRecord{}, fmt.Errorf("missing record_type")
	}
	rec := EvalRecord{RecordType: *f.RecordType, Score: f.Score, Reason: f.Reason, CaseID: f.CaseID, DatasetID: f.DatasetID}
	switch *f.RecordType {
	case "event_score":
		if f.TS == nil || f.Turn == nil || f.EventType == nil || f.Scorer == nil || f.Result == nil {
			return EvalRecord{}, fmt.Errorf("event_score needs ts, turn, event_type, scorer and result")
		}
		rec.TS, rec.Turn, rec.EventType, rec.Scorer, rec.Result = *f.TS, *f.Turn, *f.EventType, *f.Scorer, *f.Result
	case "dataset_run":
		if f.TS == nil || f.Overall == nil || f.Scores == nil {
			return EvalRecord{}, fmt.Errorf("dataset_run needs ts, overall and scores")
		}
		rec.TS, rec.Overall, rec.Scores = *f.TS, *f.Overall, *f.Scores
	default:
		return EvalRecord{}, fmt.Errorf("unknown record_type %q", *f.RecordType)
	}
	return rec, nil
}
