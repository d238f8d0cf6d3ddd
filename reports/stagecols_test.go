package reports

import (
	"slices"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
)

// TestStageColumnsFromTheRow: the <stage>_ms columns are found in
// ResultRow, in column order, and FromCase fills each stage's own column.
func TestStageColumnsFromTheRow(t *testing.T) {
	var names []string
	for _, c := range StageColumns() {
		names = append(names, c.Stage)
	}
	want := []string{"resolve", "verify", "stage", "contain", "launch", "loop", "report"}
	if !slices.Equal(names, want) {
		t.Fatalf("StageColumns = %v, want %v", names, want)
	}
	c := &pipeline.Case{}
	for i, n := range want {
		c.Stages = append(c.Stages, pipeline.StageResult{Stage: n, Outcome: pipeline.Ran, Duration: time.Duration(i+1) * time.Millisecond})
	}
	row, _ := FromCase(CaseRun{Case: c}, "/")
	for i, col := range StageColumns() {
		if ms := col.Of(&row); ms == nil || *ms != float64(i+1) {
			t.Errorf("%s_ms = %v, want %d", col.Stage, ms, i+1)
		}
	}
	if row.LoopMS == nil || *row.LoopMS != 6 {
		t.Errorf("loop_ms field = %v", row.LoopMS)
	}
}

// TestCheckStageColumns: a stage table whose stage has no column (renamed,
// or new without its field) is refused with E-EVL-099 before a run starts.
func TestCheckStageColumns(t *testing.T) {
	tests := []struct {
		name   string
		stages []string
		code   string
	}{
		{"the seven", []string{"resolve", "verify", "stage", "contain", "launch", "loop", "report"}, ""},
		{"renamed", []string{"resolve", "verify", "staging", "contain"}, errcode.Internal},
		{"new", []string{"resolve", "probe"}, errcode.Internal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errcode.Code(CheckStageColumns(tt.stages)); got != tt.code {
				t.Fatalf("code = %q, want %q", got, tt.code)
			}
		})
	}
}
