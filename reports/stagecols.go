package reports

import (
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// The <stage>_ms columns of results.parquet are found in ResultRow itself:
// every *float64 field whose parquet column is "<name>_ms" (duration_ms
// aside) times the stage called <name>. Nothing else lists them, so the
// rows, the trend report and the check at start-up (CheckStageColumns)
// cannot disagree; a stage added to the table needs only its field.

// StageColumn is one stage's timing column: the stage's name and the
// ResultRow field holding its milliseconds.
type StageColumn struct {
	Stage string
	field int
}

// stageColumns is the table StageColumns returns, found once: it depends
// only on the ResultRow type, and walking its tags for every case was half
// of FromCase's time. Nobody may change it; FromCase reads it as it is,
// every other caller gets a copy (StageColumns).
var stageColumns = sync.OnceValue(findStageColumns) //nolint:gochecknoglobals // read-only table of ResultRow's stage columns, found once

// StageColumns returns the timed stages in column order: a copy, which the
// caller may change.
func StageColumns() []StageColumn { return slices.Clone(stageColumns()) }

// findStageColumns walks ResultRow's fields for the <stage>_ms columns.
func findStageColumns() []StageColumn {
	t := reflect.TypeFor[ResultRow]()
	ptr := reflect.TypeFor[*float64]()
	var out []StageColumn
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("parquet"), ",")
		stage, ok := strings.CutSuffix(name, "_ms")
		if !ok || name == "duration_ms" || f.Type != ptr {
			continue
		}
		out = append(out, StageColumn{Stage: stage, field: i})
	}
	return out
}

// Of returns the row's milliseconds for the stage; nil when it did not run.
func (c StageColumn) Of(row *ResultRow) *float64 {
	return reflect.ValueOf(row).Elem().Field(c.field).Interface().(*float64)
}

// set stores ms in the row's column.
func (c StageColumn) set(row *ResultRow, ms *float64) {
	reflect.ValueOf(row).Elem().Field(c.field).Set(reflect.ValueOf(ms))
}

// CheckStageColumns refuses a stage table with a stage that has no
// <stage>_ms column (E-EVL-099): a renamed or new stage must not lose its
// timings silently. The run calls it on the graph before any case starts.
func CheckStageColumns(stages []string) error {
	have := map[string]bool{}
	for _, c := range StageColumns() {
		have[c.Stage] = true
	}
	var missing []string
	for _, s := range stages {
		if !have[s] {
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		return errcode.New(errcode.Internal, "stage %s has no %s_ms column in results.parquet (reports.ResultRow)",
			strings.Join(missing, ", "), missing[0])
	}
	return nil
}
