package main

import (
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/transcript"
)

func TestInsideDir(t *testing.T) {
	tests := []struct {
		path, dir string
		want      bool
	}{
		{"/runs/a", "/runs/a", true},
		{"/runs/a/new", "/runs/a", true},
		{"/runs/a/..b", "/runs/a", true},
		{"/runs/ab", "/runs/a", false},
		{"/runs/b", "/runs/a", false},
		{"/runs", "/runs/a", false},
		{"/other/a", "/runs/a", false},
	}
	for _, tt := range tests {
		if got := insideDir(tt.path, tt.dir); got != tt.want {
			t.Errorf("insideDir(%q, %q) = %v, want %v", tt.path, tt.dir, got, tt.want)
		}
	}
}

// TestTraceLines: the journal's events, in sequence order, are the trace;
// the session's file only without them.
func TestTraceLines(t *testing.T) {
	file := []transcript.TraceEvent{{Raw: []byte(`{"event_type":"file"}`)}}
	tests := []struct {
		name   string
		events []reports.EventRow
		want   string
	}{
		{"events", []reports.EventRow{{Seq: 1, EventJSON: `{"n":1}`}, {Seq: 0, EventJSON: `{"n":0}`}}, `{"n":0}|{"n":1}`},
		{"no events", nil, `{"event_type":"file"}`},
	}
	for _, tt := range tests {
		var lines []string
		for _, l := range traceLines(tt.events, file) {
			lines = append(lines, string(l))
		}
		if got := strings.Join(lines, "|"); got != tt.want {
			t.Errorf("%s: traceLines = %s, want %s", tt.name, got, tt.want)
		}
	}
}
