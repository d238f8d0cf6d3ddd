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
