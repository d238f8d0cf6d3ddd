package httpapi

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestAIMDArithmetic(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	sec := time.Second
	// step is one answer: ticket, newest ticket, in flight, peak, status,
	// Retry-After, seconds after t0; want the change (nil for none).
	type step struct {
		t, last        uint64
		inflight, peak int
		status         int
		retryAfter     *time.Duration
		at             int
		want           *change
	}
	tests := []struct {
		name         string
		max, workers int
		steps        []step
		wantLimit    int
	}{
		{"429 halves", 64, 8, []step{{t: 1, last: 64, inflight: 64, peak: 64, status: 429, want: &change{64, 32, ReasonRateLimited}}}, 32},
		{"503 halves", 10, 8, []step{{t: 1, last: 10, inflight: 10, peak: 10, status: 503, want: &change{10, 5, ReasonUnavailable}}}, 5},
		{"one decrease per round", 64, 8, []step{
			{t: 5, last: 64, inflight: 64, peak: 64, status: 429, want: &change{64, 32, ReasonRateLimited}},
			{t: 6, last: 64, inflight: 60, peak: 64, status: 429},  // sent before the decrease
			{t: 64, last: 66, inflight: 40, peak: 64, status: 429}, // still before
			{t: 65, last: 70, inflight: 32, peak: 64, status: 429, want: &change{32, 16, ReasonRateLimited}},
		}, 16},
		{"never below one", 2, 8, []step{
			{t: 1, last: 2, inflight: 2, peak: 2, status: 429, want: &change{2, 1, ReasonRateLimited}},
			{t: 3, last: 3, inflight: 1, peak: 2, status: 429},
		}, 1},
		{"grows by one per limit's worth of answers", 4, 8, []step{
			{t: 1, last: 4, inflight: 4, peak: 4, status: 429, want: &change{4, 2, ReasonRateLimited}},
			{t: 5, last: 6, inflight: 2, peak: 4, status: 200},
			{t: 6, last: 7, inflight: 2, peak: 4, status: 200, want: &change{2, 3, ReasonRecovered}},
			{t: 7, last: 8, inflight: 3, peak: 4, status: 200},
			{t: 8, last: 9, inflight: 3, peak: 4, status: 400}, // an answer, not a success
			{t: 9, last: 10, inflight: 3, peak: 4, status: 200},
			{t: 10, last: 11, inflight: 3, peak: 4, status: 200, want: &change{3, 4, ReasonRecovered}},
			{t: 11, last: 12, inflight: 4, peak: 4, status: 200},
			{t: 12, last: 13, inflight: 4, peak: 4, status: 200},
			{t: 13, last: 14, inflight: 4, peak: 4, status: 200},
			{t: 14, last: 15, inflight: 4, peak: 4, status: 200}, // at the ceiling
		}, 4},
		{"no growth during Retry-After", 8, 8, []step{
			{t: 1, last: 8, inflight: 8, peak: 8, status: 429, retryAfter: &sec, want: &change{8, 4, ReasonRateLimited}},
			{t: 9, last: 12, inflight: 4, peak: 8, status: 200},
			{t: 10, last: 12, inflight: 4, peak: 8, status: 200},
			{t: 11, last: 12, inflight: 4, peak: 8, status: 200},
			{t: 12, last: 12, inflight: 4, peak: 8, status: 200}, // held
			{t: 13, last: 13, inflight: 4, peak: 8, status: 200, at: 1, want: &change{4, 5, ReasonRecovered}},
		}, 5},
		{"no bound: adapts from the requests in flight", 0, 6, []step{
			{t: 1, last: 40, inflight: 3, peak: 3, status: 200},
			{t: 30, last: 40, inflight: 20, peak: 25, status: 429, want: &change{20, 10, ReasonRateLimited}},
		}, 10},
		{"answers to requests sent before a decrease do not grow it", 8, 8, []step{
			{t: 3, last: 8, inflight: 8, peak: 8, status: 429, want: &change{8, 4, ReasonRateLimited}},
			{t: 4, last: 8, inflight: 7, peak: 8, status: 200},
			{t: 5, last: 8, inflight: 6, peak: 8, status: 200},
			{t: 6, last: 8, inflight: 5, peak: 8, status: 200},
			{t: 7, last: 8, inflight: 4, peak: 8, status: 200},
			{t: 8, last: 8, inflight: 3, peak: 8, status: 200},
		}, 4},
		{"no bound: one in flight becomes a limit of one", 0, 4, []step{
			{t: 1, last: 1, inflight: 1, peak: 1, status: 503, want: &change{1, 1, ReasonUnavailable}},
			{t: 2, last: 2, inflight: 1, peak: 1, status: 503},
		}, 1},
		{"no bound: grows to the larger of workers and the peak", 0, 30, []step{
			{t: 1, last: 2, inflight: 2, peak: 2, status: 429, want: &change{2, 1, ReasonRateLimited}},
			{t: 3, last: 3, inflight: 1, peak: 2, status: 200, want: &change{1, 2, ReasonRecovered}},
		}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAIMD(tt.max, tt.workers)
			for i, s := range tt.steps {
				c, ok := a.answered(s.t, s.last, s.inflight, s.peak, s.status, s.retryAfter, t0.Add(time.Duration(s.at)*time.Second))
				var got *change
				if ok {
					got = &c
				}
				if diff := cmp.Diff(got, s.want, cmp.AllowUnexported(change{})); diff != "" {
					t.Errorf("step %d: change (-got +want):\n%s", i, diff)
				}
			}
			if a.limit != tt.wantLimit {
				t.Errorf("limit = %d, want %d", a.limit, tt.wantLimit)
			}
		})
	}
}
