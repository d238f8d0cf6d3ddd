package main

import (
	"testing"
	"time"
)

func TestParseWaitPoints(t *testing.T) {
	tests := []struct {
		value string
		want  []waitPoint
		ok    bool
	}{
		{value: "4096/256/50ms/1", ok: true, want: []waitPoint{{4096, 256, 50 * time.Millisecond, 1}}},
		{value: "8192/1024/1s/1, 16/8/0s/3", ok: true,
			want: []waitPoint{{8192, 1024, time.Second, 1}, {16, 8, 0, 3}}},
		{value: "4096/256/50ms"},
		{value: "4096/256/50/1"},
		{value: "0/256/50ms/1"},
		{value: "4096/256/-1s/1"},
		{value: "4096/256/50ms/0"},
	}
	for _, tt := range tests {
		got, err := parseWaitPoints(tt.value)
		if (err == nil) != tt.ok {
			t.Errorf("parseWaitPoints(%q) error = %v, want ok %v", tt.value, err, tt.ok)
			continue
		}
		if len(got) != len(tt.want) {
			t.Fatalf("parseWaitPoints(%q) = %v, want %v", tt.value, got, tt.want)
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("parseWaitPoints(%q)[%d] = %+v, want %+v", tt.value, i, got[i], tt.want[i])
			}
		}
	}
}

func TestWaves(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms ...int) []time.Time {
		var out []time.Time
		for _, m := range ms {
			out = append(out, t0.Add(time.Duration(m)*time.Millisecond))
		}
		return out
	}
	tests := []struct {
		name     string
		arrivals []time.Time
		perWave  int
		want     []waveStat
	}{
		{"none", nil, 4, nil},
		{"no wave size", at(1, 2), 0, nil},
		{"two waves out of order, the last short", at(1005, 10, 0, 1000, 30, 20, 1010), 4, []waveStat{
			{Wave: 1, FirstMS: 0, P10MS: 0, P50MS: 10, P90MS: 20, LastMS: 30},
			{Wave: 2, FirstMS: 1000, P10MS: 1000, P50MS: 1005, P90MS: 1005, LastMS: 1010},
		}},
		{"one request", at(7), 1024, []waveStat{{Wave: 1}}},
	}
	for _, tt := range tests {
		got := waves(tt.arrivals, tt.perWave)
		if len(got) != len(tt.want) {
			t.Fatalf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s: wave %d = %+v, want %+v", tt.name, i+1, got[i], tt.want[i])
			}
		}
	}
}

func TestStartAndEnd(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Millisecond) }
	r := childRun{started: t0, exited: ms(2600)}
	// Out of order: the first request at 250 ms, the last at 1500 ms, its
	// answer 1 s later at 2500 ms, the exit 100 ms after that.
	first, after := startAndEnd(r, []time.Time{ms(900), ms(250), ms(1500), ms(400)}, time.Second)
	if first != 250 || after != 100 {
		t.Errorf("startAndEnd = %v, %v; want 250, 100", first, after)
	}
	if first, after := startAndEnd(r, nil, time.Second); first != 0 || after != 0 {
		t.Errorf("no requests: startAndEnd = %v, %v; want 0, 0", first, after)
	}
}
