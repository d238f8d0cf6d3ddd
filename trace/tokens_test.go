package trace

import (
	"math"
	"path/filepath"
	"testing"
	"time"
)

func TestAddTokensSaturates(t *testing.T) {
	const top = math.MaxInt64
	tests := []struct {
		name string
		in   []int64
		want int64
	}{
		{"none", nil, 0},
		{"small", []int64{3, 4}, 7},
		{"max plus one", []int64{top, 1}, top},
		{"max plus max", []int64{top, top}, top},
		{"three maxima", []int64{top, top, top}, top}, // wrapped to MaxInt64-2 before
		{"one below max", []int64{top - 1, 1}, top},
		{"negative adds nothing", []int64{5, -7}, 5},
		{"min int", []int64{math.MinInt64, 2}, 2},
		{"negative then max", []int64{-1, top}, top},
	}
	for _, tt := range tests {
		if got := AddTokens(tt.in...); got != tt.want {
			t.Errorf("%s: AddTokens(%v) = %d, want %d", tt.name, tt.in, got, tt.want)
		}
	}
}

// TestWriterTotalsSaturate: turns reporting usage at the 64-bit maximum
// leave the session_end totals at the maximum, not wrapped.
func TestWriterTotalsSaturate(t *testing.T) {
	w, err := Create(filepath.Join(t.TempDir(), "trace.jsonl"), "ses_1", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for turn := range 3 {
		if err := w.Inference(Inference{Turn: turn, InputTokens: math.MaxInt64, OutputTokens: math.MaxInt64 - 1}); err != nil {
			t.Fatal(err)
		}
	}
	if got := w.Totals(); got.TotalInputTokens != math.MaxInt64 || got.TotalOutputTokens != math.MaxInt64 {
		t.Errorf("totals = %d input, %d output; want both %d", got.TotalInputTokens, got.TotalOutputTokens, int64(math.MaxInt64))
	}
}
