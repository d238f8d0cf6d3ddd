package reports

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
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
		for _, batch := range []int{1, 2, 3, spillBatch} {
			t.Run(fmt.Sprintf("%s, runs of %d", tt.name, batch), func(t *testing.T) {
				sameJUnit(t, rows, scores, tt.order(len(rows)), batch)
			})
		}
	}
}

// sameJUnit adds rows in order to a held and a spilling JUnit (its runs
// batch cases long) and requires the same junit.xml of both.
func sameJUnit(t *testing.T, rows []ResultRow, scores [][]ScoreRow, order []int, batch int) {
	t.Helper()
	held, spilt := &JUnit{}, NewSpillingJUnit(t.TempDir())
	t.Cleanup(func() { _ = spilt.Close() })
	if spilt.spill == nil {
		t.Fatal("no spill file was made")
	}
	spilt.batch = batch
	var s Summary
	for _, i := range order {
		held.Add(rows[i], scores[i])
		spilt.Add(rows[i], scores[i])
		s.AddCase(rows[i], scores[i])
		if len(spilt.cases) >= batch {
			t.Fatalf("the spilling JUnit holds %d cases in memory, its batch is %d", len(spilt.cases), batch)
		}
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
}

// TestSpillingJUnitMergesManyRuns: 5,000 cases in a shuffled order, some
// keys added more than once (a retried case's attempts), through runs of
// 1 to 4,096 cases: the merged junit.xml is the held one, attempts of a
// key in the order they were added.
func TestSpillingJUnitMergesManyRuns(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	var rows []ResultRow
	var scores [][]ScoreRow
	for i := range 5000 {
		id := fmt.Sprintf("c%04d", rnd.IntN(4000))
		st := []string{StatusPassed, StatusFailed, StatusError}[rnd.IntN(3)]
		msg := fmt.Sprintf("attempt %d", i)
		rows = append(rows, ResultRow{RunID: "r", CaseID: id, Epoch: int32(1 + rnd.IntN(3)), Status: st, DurationMS: float64(i), ErrorMessage: &msg})
		scores = append(scores, []ScoreRow{{CaseID: id, Scorer: "contains", Result: ResultFail, Reason: msg}})
	}
	order := rnd.Perm(len(rows))
	for _, batch := range []int{1, 7, 100, spillBatch, 4096} {
		t.Run(fmt.Sprintf("runs of %d", batch), func(t *testing.T) {
			sameJUnit(t, rows, scores, order, batch)
		})
	}
}

// TestSpillingJUnitDamagedFile: a spill file cut short is E-IO-003 from
// Write, not a junit.xml missing cases.
func TestSpillingJUnitDamagedFile(t *testing.T) {
	rows, scores := scoredRun()
	j := NewSpillingJUnit(t.TempDir())
	t.Cleanup(func() { _ = j.Close() })
	j.batch = 1
	for i := range rows {
		j.Add(rows[i], scores[i])
	}
	if err := j.spill.Truncate(j.size - 3); err != nil {
		t.Fatal(err)
	}
	var s Summary
	d := s.Digest(time.Second)
	err := j.Write(io.Discard, &d, time.Time{})
	if errcode.Code(err) != errcode.IO {
		t.Fatalf("Write of a damaged spill = %v, want E-IO-003", err)
	}
}
