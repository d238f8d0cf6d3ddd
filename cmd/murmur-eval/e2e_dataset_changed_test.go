package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference/apitest"
)

// TestDatasetEditedDuringTheRun: a run reads each case's line again when
// the case starts (datasets.Dataset.Case). A line edited in place after the
// load (same length, other bytes) makes that case an error row with
// E-IO-003 naming the file and line; the run goes on and every other case
// gets its verdict.
func TestDatasetEditedDuringTheRun(t *testing.T) {
	dir := quickstart(t)
	t.Parallel()
	dataset := filepath.Join(dir, "cases.jsonl")
	ids := datasetIDs(t, dataset)
	lines := readLines(t, dataset)
	last := ids[len(ids)-1]
	var once sync.Once
	srv := anthropicFromRecordings(t, dir, func(caseID string, turn int) *apitest.Reply {
		once.Do(func() {
			data, err := os.ReadFile(dataset)
			if err != nil {
				t.Error(err)
				return
			}
			i := bytes.LastIndex(data, []byte(`"task_path"`))
			if i < 0 {
				t.Error("the last line has no task_path")
				return
			}
			// "Task_path": same length, other bytes, written in place. Not
			// os.WriteFile: it truncates first, and a case whose line is
			// read again in that moment (another case being prepared)
			// would find its line gone, not the last line changed.
			f, err := os.OpenFile(dataset, os.O_WRONLY, 0)
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := f.WriteAt([]byte{'T'}, int64(i+1)); err != nil {
				t.Error(err)
			}
			if err := f.Close(); err != nil {
				t.Error(err)
			}
		})
		return nil
	})
	useEndpoint(t, dir, srv.URL)
	out := filepath.Join(reachableTempDir(t), "run")
	r := runBinary(t, dir, "--dataset", dataset, "--out", out, "--workers", "1", "--progress", "none", "--driver", "builtin")
	expected := readExpectedStatuses(t, filepath.Join(dir, "expected-statuses.json"))
	rows := resultsByCase(t, out)
	if len(rows) != len(ids) {
		t.Fatalf("%d rows, want %d (every case recorded)\nstderr:\n%s", len(rows), len(ids), r.stderr)
	}
	for _, id := range ids {
		row := rows[id]
		if id != last {
			if row["status"] != expected[id] {
				t.Errorf("case %q: status %v, want %s (error: %v)", id, row["status"], expected[id], row["error_message"])
			}
			continue
		}
		where := dataset + ":" + itoa(len(lines))
		if row["status"] != "error" || row["error_code"] != "E-IO-003" || !strings.Contains(strOf(row["error_message"]), where) {
			t.Errorf("case %q, its line edited during the run: status %v, code %v, message %v; want error, E-IO-003 naming %s",
				id, row["status"], row["error_code"], row["error_message"], where)
		}
	}
	if r.code == 0 || r.code == exitUsage {
		t.Errorf("exit %d: a harness error in the run is not a success, nor a refusal before the run\nstderr:\n%s", r.code, r.stderr)
	}
}

func strOf(v any) string {
	s, _ := v.(string)
	return s
}
