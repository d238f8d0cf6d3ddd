package reports

import (
	"bytes"
	"fmt"
	"testing"
	"time"
	"unsafe"
)

// TestSpillingJUnitWritesTheSameBytes feeds the same cases, in an order
// unlike their sorted one, to an in-memory and a spilling JUnit: junit.xml
// must come out byte for byte the same, odd text included.
func TestSpillingJUnitWritesTheSameBytes(t *testing.T) {
	rows, scores := scoredRun()
	code, stage, msg := "E-EVL-020", "loop", "ran out \xff\xfe of <time> & \x01"
	rows = append(rows,
		ResultRow{RunID: "run_1", CaseID: "slow", Epoch: 2, Status: StatusTimeout, DurationMS: 30000,
			ErrorCode: &code, ErrorStage: &stage, ErrorMessage: &msg},
		ResultRow{RunID: "run_1", CaseID: "stuck", Epoch: 1, Status: StatusCancelled},
		ResultRow{RunID: "run_1", CaseID: "a-first", Epoch: 1, Status: StatusFailed, DurationMS: 3})
	scores = append(scores, nil, nil, []ScoreRow{{CaseID: "a-first", Scorer: "check", Result: ResultFail,
		Reason: fmt.Sprintf("%300s \xff ]]>", "long")}})
	tests := []struct {
		name  string
		order func(n int) []int
	}{
		{"as added", func(n int) []int {
			o := make([]int, n)
			for i := range o {
				o[i] = i
			}
			return o
		}},
		{"reversed", func(n int) []int {
			o := make([]int, n)
			for i := range o {
				o[i] = n - 1 - i
			}
			return o
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			held, spilt := &JUnit{}, NewSpillingJUnit(t.TempDir())
			t.Cleanup(func() { _ = spilt.Close() })
			if spilt.spill == nil {
				t.Fatal("no spill file was made")
			}
			var s Summary
			for _, i := range tt.order(len(rows)) {
				held.Add(rows[i], scores[i])
				spilt.Add(rows[i], scores[i])
				s.AddCase(rows[i], scores[i])
			}
			if len(spilt.cases) != 0 {
				t.Fatalf("the spilling JUnit held %d cases in memory", len(spilt.cases))
			}
			d := s.Digest(3 * time.Second)
			var a, b bytes.Buffer
			started := time.Date(2025, 3, 1, 2, 0, 0, 0, time.UTC)
			if err := held.Write(&a, &d, started); err != nil {
				t.Fatal(err)
			}
			if err := spilt.Write(&b, &d, started); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatalf("junit.xml differs:\nheld:\n%s\nspilt:\n%s", a.Bytes(), b.Bytes())
			}
		})
	}
}

// TestSpilledIndexEntryIsSmall keeps what a spilling JUnit holds per case
// in memory at 32 bytes on 64-bit machines (issue 19: 100,000 cases).
func TestSpilledIndexEntryIsSmall(t *testing.T) {
	if size := unsafe.Sizeof(spilled{}); unsafe.Sizeof(uintptr(0)) == 8 && size > 32 {
		t.Errorf("an index entry is %d bytes, want at most 32", size)
	}
}
