package scoring

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
)

// EvalFile is the name of the per-session scores file murmur's eval hook
// writes and `mur eval show` reads.
const EvalFile = "eval.jsonl"

// EvalRecords renders a case's scores as murmur-hook-eval writes them
// (murmur-session.md §5.2): one event_score line per score, in order, then
// one dataset_run line. Keys are sorted, as serde_json writes murmur's
// json! maps, scores are floats with a decimal point (1.0, not 1), ts is
// the session_end's time in Unix ms, turn the session's total turns, and
// dataset_id is null when the manifest has none.
func EvalRecords(scores []Score, caseID string, datasetID *string, turn, ts int64) []byte {
	var b bytes.Buffer
	b.Grow(256 * (len(scores) + 1))
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // serde_json writes "<" and "&" verbatim
	byName := make(map[string]json.RawMessage, len(scores))
	for _, s := range scores {
		_ = enc.Encode(scoreLine{ // strings, numbers and raw floats always encode; Encode adds the newline
			EventType: "session_end", Reason: s.Reason, RecordType: "event_score", Result: s.Result(),
			Score: rustFloat(s.Value), Scorer: s.Name, TS: ts, Turn: turn,
		})
		byName[s.Name] = rustFloat(s.Value)
	}
	_ = enc.Encode(runLine{CaseID: caseID, DatasetID: datasetID, Overall: Overall(scores),
		RecordType: "dataset_run", Scores: byName, TS: ts})
	return b.Bytes()
}

// scoreLine is an event_score record; its fields are in key order, as
// serde_json sorts murmur's json! maps (a struct encodes without the
// sorting and boxing a map costs).
type scoreLine struct {
	EventType  string          `json:"event_type"`
	Reason     string          `json:"reason"`
	RecordType string          `json:"record_type"`
	Result     string          `json:"result"`
	Score      json.RawMessage `json:"score"`
	Scorer     string          `json:"scorer"`
	TS         int64           `json:"ts"`
	Turn       int64           `json:"turn"`
}

// runLine is the dataset_run record, its fields in key order; a nil
// DatasetID is JSON null.
type runLine struct {
	CaseID     string                     `json:"case_id"`
	DatasetID  *string                    `json:"dataset_id"`
	Overall    string                     `json:"overall"`
	RecordType string                     `json:"record_type"`
	Scores     map[string]json.RawMessage `json:"scores"`
	TS         int64                      `json:"ts"`
}

// WriteEvalFile writes EvalRecords to dir/eval.jsonl, replacing it, as
// the hook does. The session folder is the tool's: the file is created
// fresh through sessionfs, never written through a link or into a FIFO.
func WriteEvalFile(dir string, scores []Score, caseID string, datasetID *string, turn, ts int64) error {
	return sessionfs.WriteFile(dir, EvalFile, EvalRecords(scores, caseID, datasetID, turn, ts), 0o644)
}

// rustFloat formats f as serde_json does an f64 in [0, 1]: the shortest
// representation, with ".0" on whole numbers.
func rustFloat(f float64) json.RawMessage {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return json.RawMessage(s)
}
