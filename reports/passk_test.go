package reports

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnbiasedPassAtK(t *testing.T) {
	tests := []struct {
		n, c, k int
		want    float64
	}{
		{n: 1, c: 1, k: 1, want: 1},
		{n: 1, c: 0, k: 1, want: 0},
		{n: 10, c: 3, k: 1, want: 0.3},
		{n: 5, c: 1, k: 5, want: 1},
		{n: 5, c: 0, k: 5, want: 0},
		{n: 4, c: 2, k: 2, want: 1 - 1.0/6}, // 1 - C(2,2)/C(4,2)
		{n: 200, c: 1, k: 10, want: 0.05},
	}
	for _, tt := range tests {
		if got := UnbiasedPassAtK(tt.n, tt.c, tt.k); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("pass@%d(n=%d, c=%d) = %v, want %v", tt.k, tt.n, tt.c, got, tt.want)
		}
	}
}

func TestDigestPassAtK(t *testing.T) {
	var s Summary
	s.SetPassAt([]int{1, 3})
	add := func(id string, epoch int32, status string) {
		s.Add(ResultRow{RunID: "r", CaseID: id, Epoch: epoch, Status: status})
	}
	// a: 3 of 3 passed; b: 1 of 3; c: 2 scored (one error), 0 passed.
	for e, st := range []string{StatusPassed, StatusPassed, StatusPassed} {
		add("a", int32(e+1), st)
	}
	for e, st := range []string{StatusFailed, StatusPassed, StatusFailed} {
		add("b", int32(e+1), st)
	}
	for e, st := range []string{StatusFailed, StatusError, StatusFailed} {
		add("c", int32(e+1), st)
	}
	d := s.Digest(0)
	want := []PassAtK{
		{K: 1, Value: (1 + 1.0/3 + 0) / 3, Cases: 3},
		{K: 3, Value: 1, Cases: 2, Excluded: 1}, // a: 1, b: 1; c has 2 scored epochs
	}
	if diff := cmp.Diff(want, d.PassAtK, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })); diff != "" {
		t.Errorf("pass@k (-want +got):\n%s", diff)
	}
	wantCases := []CasePasses{{"a", "", 3, 3, 3}, {"b", "", 3, 3, 1}, {"c", "", 3, 2, 0}}
	if diff := cmp.Diff(wantCases, d.CasePasses); diff != "" {
		t.Errorf("case passes (-want +got):\n%s", diff)
	}
}

// A single-epoch run without pass@k keeps no per-case counts and digests
// as it did with them; told of one epoch but asked for pass@1, or of
// three, it counts as before.
func TestSetEpochsKeepsCountsOnlyWhenShown(t *testing.T) {
	rows := []ResultRow{{RunID: "r", CaseID: "a", Epoch: 1, Status: StatusPassed},
		{RunID: "r", CaseID: "b", Epoch: 1, Status: StatusFailed}, {RunID: "r", CaseID: "c", Epoch: 1, Status: StatusError}}
	tests := []struct {
		name     string
		epochs   int
		passAt   []int
		wantKept bool
	}{
		{name: "unknown epochs", wantKept: true},
		{name: "one epoch", epochs: 1},
		{name: "one epoch, pass@1", epochs: 1, passAt: []int{1}, wantKept: true},
		{name: "three epochs", epochs: 3, wantKept: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s, withCounts Summary
			s.SetEpochs(tt.epochs)
			s.SetPassAt(tt.passAt)
			withCounts.SetPassAt(tt.passAt)
			for _, r := range rows {
				s.Add(r)
				withCounts.Add(r)
			}
			if kept := s.perCase != nil; kept != tt.wantKept {
				t.Errorf("per-case counts kept = %v, want %v", kept, tt.wantKept)
			}
			if diff := cmp.Diff(withCounts.Digest(0), s.Digest(0)); diff != "" {
				t.Errorf("digest (-counted +this):\n%s", diff)
			}
		})
	}
}
