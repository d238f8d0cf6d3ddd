package journal

import (
	"time"

	"github.com/murmur-nexus/murmur-eval/reports"
)

// The journal record is json.Marshal's bytes (journal.Entry.Marshalled),
// written here field by field instead of by encoding/json's reflection:
// encoding a case's record was half of the collector's CPU (a profile of
// 8,192 one-turn cases; BenchmarkEntryIn against BenchmarkRecordMarshal
// shows what this saves). The keys are the rows' Go field names (the rows have no
// json tags), in field order; nil pointers are null; the slices tagged
// omitempty are left out when empty. TestRecordMatchesMarshal and
// FuzzRecordMatchesMarshal fill every field of the rows by reflection and
// compare with json.Marshal, so a field added to a row and not here fails
// them.

// appendRecord appends r as json.Marshal encodes it. ok is false when
// json.Marshal would refuse r (a NaN or infinite float, a time outside
// RFC 3339's years): the caller asks encoding/json for the error.
func appendRecord(b []byte, r *Record) (out []byte, ok bool) {
	w := recordWriter{b: b, ok: true}
	w.record(r)
	return w.b, w.ok
}

// recordWriter appends a record's JSON to b; ok turns false at the first
// value JSON cannot hold, after which what b holds does not matter.
type recordWriter struct {
	b  []byte
	ok bool
}

func (w *recordWriter) record(r *Record) {
	w.b = append(w.b, `{"attempts":`...)
	if r.Attempts == nil {
		w.b = append(w.b, "null}"...)
		return
	}
	w.b = append(w.b, '[')
	for i := range r.Attempts {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.attempt(&r.Attempts[i])
	}
	w.b = append(w.b, "]}"...)
}

func (w *recordWriter) attempt(a *Attempt) {
	w.b = append(w.b, `{"result":`...)
	w.result(&a.Result)
	if len(a.Scores) > 0 {
		w.b = append(w.b, `,"scores":[`...)
		for i := range a.Scores {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.score(&a.Scores[i])
		}
		w.b = append(w.b, ']')
	}
	if len(a.Events) > 0 {
		w.b = append(w.b, `,"events":[`...)
		for i := range a.Events {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.event(&a.Events[i])
		}
		w.b = append(w.b, ']')
	}
	w.b = append(w.b, '}')
}

func (w *recordWriter) result(r *reports.ResultRow) {
	w.str(`{"RunID":`, r.RunID)
	w.str(`,"CaseID":`, r.CaseID)
	w.int(`,"Epoch":`, int64(r.Epoch))
	w.str(`,"SessionID":`, r.SessionID)
	w.str(`,"Status":`, r.Status)
	w.strPtr(`,"ExitStatus":`, r.ExitStatus)
	w.strPtr(`,"ErrorCode":`, r.ErrorCode)
	w.strPtr(`,"ErrorStage":`, r.ErrorStage)
	w.strPtr(`,"ErrorMessage":`, r.ErrorMessage)
	w.int(`,"Turns":`, int64(r.Turns))
	w.int(`,"InputTokens":`, r.InputTokens)
	w.int(`,"OutputTokens":`, r.OutputTokens)
	w.int(`,"ToolCalls":`, int64(r.ToolCalls))
	w.time(`,"StartedAt":`, r.StartedAt)
	w.float(`,"DurationMS":`, r.DurationMS)
	w.floatPtr(`,"ResolveMS":`, r.ResolveMS)
	w.floatPtr(`,"VerifyMS":`, r.VerifyMS)
	w.floatPtr(`,"StageMS":`, r.StageMS)
	w.floatPtr(`,"ContainMS":`, r.ContainMS)
	w.floatPtr(`,"LaunchMS":`, r.LaunchMS)
	w.floatPtr(`,"LoopMS":`, r.LoopMS)
	w.floatPtr(`,"ReportMS":`, r.ReportMS)
	w.str(`,"CapsuleName":`, r.CapsuleName)
	w.str(`,"CapsuleVersion":`, r.CapsuleVersion)
	w.strPtr(`,"Model":`, r.Model)
	w.str(`,"SessionDir":`, r.SessionDir)
	w.int(`,"InferenceRetries":`, int64(r.InferenceRetries))
	w.int(`,"ReplayDivergences":`, int64(r.ReplayDivergences))
	w.int32Ptr(`,"ReplayFirstDivergentTurn":`, r.ReplayFirstDivergentTurn)
	w.str(`,"ContainmentAchieved":`, r.ContainmentAchieved)
	w.int(`,"Attempt":`, int64(r.Attempt))
	w.int(`,"Reopens":`, int64(r.Reopens))
	w.int64Ptr(`,"WorkspaceDiffBytes":`, r.WorkspaceDiffBytes)
	w.int64Ptr(`,"ProviderInputTokens":`, r.ProviderInputTokens)
	w.int64Ptr(`,"ProviderOutputTokens":`, r.ProviderOutputTokens)
	w.strPtr(`,"MurmurOverall":`, r.MurmurOverall)
	w.strPtr(`,"MurmurDifference":`, r.MurmurDifference)
	w.int(`,"CacheHits":`, int64(r.CacheHits))
	w.int(`,"CacheMisses":`, int64(r.CacheMisses))
	w.strPtr(`,"Variant":`, r.Variant)
	w.floatPtr(`,"CostUSD":`, r.CostUSD)
	w.boolPtr(`,"CostEstimated":`, &r.CostEstimated)
	w.b = append(w.b, '}')
}

func (w *recordWriter) score(s *reports.ScoreRow) {
	w.str(`{"RunID":`, s.RunID)
	w.str(`,"CaseID":`, s.CaseID)
	w.int(`,"Epoch":`, int64(s.Epoch))
	w.str(`,"SessionID":`, s.SessionID)
	w.str(`,"Scorer":`, s.Scorer)
	w.str(`,"ScorerType":`, s.ScorerType)
	w.str(`,"Result":`, s.Result)
	w.float(`,"Score":`, s.Score)
	w.str(`,"Reason":`, s.Reason)
	w.int(`,"Attempt":`, int64(s.Attempt))
	w.strPtr(`,"JudgeModel":`, s.JudgeModel)
	w.int64Ptr(`,"JudgeInputTokens":`, s.JudgeInputTokens)
	w.int64Ptr(`,"JudgeOutputTokens":`, s.JudgeOutputTokens)
	w.floatPtr(`,"JudgeLatencyMS":`, s.JudgeLatencyMS)
	w.int32Ptr(`,"JudgeSamples":`, s.JudgeSamples)
	w.floatPtr(`,"JudgeSpread":`, s.JudgeSpread)
	w.boolPtr(`,"JudgeSplit":`, s.JudgeSplit)
	w.strPtr(`,"Variant":`, s.Variant)
	w.floatPtr(`,"JudgeCostUSD":`, s.JudgeCostUSD)
	w.b = append(w.b, '}')
}

func (w *recordWriter) event(e *reports.EventRow) {
	w.str(`{"RunID":`, e.RunID)
	w.str(`,"CaseID":`, e.CaseID)
	w.int(`,"Epoch":`, int64(e.Epoch))
	w.str(`,"SessionID":`, e.SessionID)
	w.int(`,"Seq":`, int64(e.Seq))
	w.time(`,"Timestamp":`, e.Timestamp)
	w.str(`,"EventType":`, e.EventType)
	w.int32Ptr(`,"Turn":`, e.Turn)
	w.strPtr(`,"ToolName":`, e.ToolName)
	w.str(`,"EventJSON":`, e.EventJSON)
	w.int(`,"Attempt":`, int64(e.Attempt))
	w.strPtr(`,"Variant":`, e.Variant)
	w.floatPtr(`,"CostUSD":`, e.CostUSD)
	w.b = append(w.b, '}')
}

// The field appenders: key is the field's `,"Name":` (its first `{"Name":`).

func (w *recordWriter) str(key, s string) { w.b = appendJSONString(append(w.b, key...), s) }

func (w *recordWriter) int(key string, n int64) { w.b = appendJSONInt(append(w.b, key...), n) }

func (w *recordWriter) float(key string, f float64) {
	var ok bool
	if w.b, ok = appendJSONFloat(append(w.b, key...), f); !ok {
		w.ok = false
	}
}

// time appends t as its MarshalJSON does: RFC 3339 with nanoseconds,
// quoted (which json.Marshal leaves as it is: it has no space to compact
// and no HTML character to escape).
func (w *recordWriter) time(key string, t time.Time) {
	b := append(append(w.b, key...), '"')
	b, err := t.AppendText(b)
	if err != nil {
		w.ok = false
		return
	}
	w.b = append(b, '"')
}

func (w *recordWriter) strPtr(key string, s *string) {
	if s == nil {
		w.null(key)
		return
	}
	w.str(key, *s)
}

func (w *recordWriter) int32Ptr(key string, n *int32) {
	if n == nil {
		w.null(key)
		return
	}
	w.int(key, int64(*n))
}

func (w *recordWriter) int64Ptr(key string, n *int64) {
	if n == nil {
		w.null(key)
		return
	}
	w.int(key, *n)
}

func (w *recordWriter) floatPtr(key string, f *float64) {
	if f == nil {
		w.null(key)
		return
	}
	w.float(key, *f)
}

func (w *recordWriter) boolPtr(key string, v *bool) {
	switch {
	case v == nil:
		w.null(key)
	case *v:
		w.b = append(append(w.b, key...), "true"...)
	default:
		w.b = append(append(w.b, key...), "false"...)
	}
}

func (w *recordWriter) null(key string) { w.b = append(append(w.b, key...), "null"...) }
