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
	byName := map[string]json.RawMessage{}
	for _, s := range scores {
		line := map[string]any{
			"event_type":  "session_end",
			"reason":      s.Reason,
			"record_type": "event_score",
			"result":      s.Result(),
			"score":       rustFloat(s.Value),
			"scorer":      s.Name,
			"ts":          ts,
			"turn":        turn,
		}
		writeLine(&b, line)
		byName[s.Name] = rustFloat(s.Value)
	}
	var ds any // JSON null
	if datasetID != nil {
		ds = *datasetID
	}
	writeLine(&b, map[string]any{
		"case_id":     caseID,
		"dataset_id":  ds,
		"overall":     Overall(scores),
		"record_type": "dataset_run",
		"scores":      byName,
		"ts":          ts,
	})
	return b.Bytes()
}

// WriteEvalFile writes EvalRecords to dir/eval.jsonl, replacing it, as
// the hook does. The session folder is the tool's: the file is created
// fresh through sessionfs, never written through a link or into a FIFO.
func WriteEvalFile(dir string, scores []Score, caseID string, datasetID *string, turn, ts int64) error {
	return sessionfs.WriteFile(dir, EvalFile, EvalRecords(scores, caseID, datasetID, turn, ts), 0o644)
}

// writeLine marshals a map (Go sorts map keys) without HTML escaping, as
// serde_json writes "<" and "&" verbatim.
func writeLine(b *bytes.Buffer, v map[string]any) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // maps of strings, numbers and raw floats always encode; Encode adds the newline
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
