package reports

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// benchEvents makes n event rows shaped as a trivial case's trace lines.
func benchEvents(n int) []EventRow {
	types := []string{"session_start", "inference", "tool_call", "inference", "session_end"}
	tool := "ok"
	rows := make([]EventRow, n)
	t0 := time.UnixMilli(1764446400000).UTC()
	for i := range rows {
		c := i / len(types)
		seq := int32(i % len(types))
		turn := seq/3 + 1
		rows[i] = EventRow{RunID: "run_0193f1e2a7b84c5d9e0f1a2b3c4d5e6f", CaseID: fmt.Sprintf("c%06d", c), Epoch: 1,
			SessionID: fmt.Sprintf("ses_0193f1e2a7b84c5d9e0f%012x", c), Seq: seq, Timestamp: t0.Add(time.Duration(i) * time.Millisecond),
			EventType: types[seq], Turn: &turn, Attempt: 1,
			EventJSON: fmt.Sprintf(`{"event_type":%q,"session_id":"ses_0193f1e2a7b84c5d9e0f%012x","timestamp":%d,"turn":%d,"input_tokens":100,"output_tokens":10}`,
				types[seq], c, t0.UnixMilli()+int64(i), turn)}
		if types[seq] == "tool_call" {
			rows[i].ToolName = &tool
		}
	}
	return rows
}

// BenchmarkEventSinkPrebuilt feeds event rows over a channel into an events sink
// (EventsPerGroup rows per group, as a run writes events.parquet) and finishes the
// file; it reports rows/s. Unlike BenchmarkEventSink the rows are built
// before the clock starts.
func BenchmarkEventSinkPrebuilt(b *testing.B) {
	rows := benchEvents(200_000)
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		s, err := NewSink[EventRow](filepath.Join(dir, "events.parquet"), EventsLayout())
		if err != nil {
			b.Fatal(err)
		}
		ch := make(chan EventRow, 1024)
		go func() {
			for _, r := range rows {
				ch <- r
			}
			close(ch)
		}()
		if err := s.Run(context.Background(), ch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
