package collect

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// grade is a result that decides a case's verdict.
type grade bool

func (g grade) Grade() (passed, decided bool) { return bool(g), true }

var gradeKey = pipeline.NewKey[grade]("report")

// finished makes a finished case of the run in outDir with a session folder
// on disk: passed or failed by its grade, in error with code, or cancelled
// by an interrupt.
func finished(t *testing.T, outDir, id, status string) *pipeline.Case {
	t.Helper()
	sid := trace.NewID("ses_")
	c := &pipeline.Case{RunID: "run_1", ID: id, Epoch: 1, Attempt: 1, SessionID: sid,
		SessionDir: filepath.Join(outDir, "sessions", sid), StartedAt: time.UnixMilli(1_764_446_400_000)}
	if err := os.MkdirAll(c.SessionDir, 0o755); err != nil {
		t.Fatal(err)
	}
	switch status {
	case "passed", "failed":
		c.Stages = []pipeline.StageResult{{Stage: "report", Outcome: pipeline.Ran}}
		pipeline.Store(c, gradeKey, grade(status == "passed"))
	case "error":
		c.Stages = []pipeline.StageResult{{Stage: "launch", Outcome: pipeline.Failed, Err: errcode.New(errcode.IO, "launch broke")}}
	case "unreachable":
		c.Stages = []pipeline.StageResult{{Stage: "loop", Outcome: pipeline.Failed, Err: errcode.New(errcode.EndpointUnreachable, "no endpoint")}}
	case "cancelled":
		c.EndCause = errcode.Wrap(errcode.Cancelled, context.Canceled, "interrupted")
		c.Stages = []pipeline.StageResult{{Stage: "loop", Outcome: pipeline.Failed, Err: context.Canceled}}
	}
	return c
}

// TestCollector: every finished case reaches the sinks, the summary and
// the progress; only those with a final verdict are journaled (not a
// cancelled one, nor one stopped by an unreachable endpoint), each once;
// --keep-sessions failed removes the session folder of a journaled case
// that passed; the first error of each code is printed once.
func TestCollector(t *testing.T) {
	out := t.TempDir()
	if err := os.MkdirAll(filepath.Join(out, "sessions"), 0o755); err != nil {
		t.Fatal(err)
	}
	jw, _, err := journal.Open(filepath.Join(out, "journal.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	scores, err := NewScoreSink(out)
	if err != nil {
		t.Fatal(err)
	}
	var sinkErr error
	sinks, err := OpenSinks(out, func(err error) { sinkErr = err })
	if err != nil {
		t.Fatal(err)
	}
	scores.Start(func(err error) { sinkErr = err })
	var stderr bytes.Buffer
	col := &Collector{OutDir: out, Sinks: sinks, Scores: scores, Summary: &reports.Summary{}, JUnit: &reports.JUnit{}, Stderr: &stderr,
		CaseRun: func(c *pipeline.Case) reports.CaseRun { return reports.CaseRun{Case: c} },
		Journal: jw, Keep: KeepFailed, OnFail: func(err error) { t.Errorf("journal failed: %v", err) }}
	cases := []*pipeline.Case{
		finished(t, out, "a-passed", "passed"), finished(t, out, "b-failed", "failed"), finished(t, out, "c-error", "error"),
		finished(t, out, "d-error-again", "error"), finished(t, out, "e-cancelled", "cancelled"), finished(t, out, "f-unreachable", "unreachable"),
	}
	done := make(chan *pipeline.Case, len(cases))
	for _, c := range cases {
		done <- c
	}
	close(done)
	col.Run(done)
	if err := jw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := firstErr(sinks.Close(), scores.Close(), col.Err(), sinkErr); err != nil {
		t.Fatal(err)
	}

	contents, err := journal.Read(filepath.Join(out, "journal.jsonl"), journal.CheckRecord)
	if err != nil {
		t.Fatal(err)
	}
	var journaled []string
	for _, e := range contents.Entries {
		journaled = append(journaled, e.CaseID)
	}
	if want := []string{"a-passed", "b-failed", "c-error", "d-error-again"}; !cmp.Equal(journaled, want) {
		t.Errorf("journaled %v, want %v", journaled, want)
	}
	run, err := reports.ReadRun(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(run.Results); got != len(cases) {
		t.Errorf("%d results rows, want %d", got, len(cases))
	}
	if got := col.Summary.Total(); got != len(cases) {
		t.Errorf("summary of %d cases, want %d", got, len(cases))
	}
	for _, c := range cases {
		_, err := os.Stat(c.SessionDir)
		if gone := os.IsNotExist(err); gone != (c.ID == "a-passed") {
			t.Errorf("%s: session folder removed %v, want %v", c.ID, gone, c.ID == "a-passed")
		}
	}
	if n := strings.Count(stderr.String(), errcode.IO); n != 1 {
		t.Errorf("%s printed %d times, want once:\n%s", errcode.IO, n, stderr.String())
	}
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// TestRecord: a case's record holds its earlier attempts and then its
// last, each read through runOf.
func TestRecord(t *testing.T) {
	out := t.TempDir()
	first, second := finished(t, out, "x", "error"), finished(t, out, "x", "passed")
	second.Attempt = 2
	second.Earlier = []*pipeline.Case{first}
	var asked []int
	rec := Record(second, out, func(c *pipeline.Case) reports.CaseRun {
		asked = append(asked, c.Attempt)
		return reports.CaseRun{Case: c, CapsuleName: "calc"}
	})
	if len(rec.Attempts) != 2 || rec.Attempts[0].Result.Attempt != 1 || rec.Final().Result.Attempt != 2 || rec.Final().Result.Status != "passed" {
		t.Errorf("record %+v, want attempts 1 (error) and 2 (passed)", rec)
	}
	if rec.Final().Result.CapsuleName != "calc" || !cmp.Equal(asked, []int{1, 2}) {
		t.Errorf("capsule %q, attempts asked %v; want calc and [1 2]", rec.Final().Result.CapsuleName, asked)
	}
	if want := "sessions/" + second.SessionID; rec.Final().Result.SessionDir != want {
		t.Errorf("session_dir %q, want %q", rec.Final().Result.SessionDir, want)
	}
}

func TestMissingToolCalls(t *testing.T) {
	name := func(s string) *string { return &s }
	ev := func(tool *string, typ, js string) reports.EventRow {
		return reports.EventRow{EventType: typ, ToolName: tool, EventJSON: js}
	}
	missing := `{"error_code":"` + errcode.ToolNotProvided + `"}`
	tests := []struct {
		name   string
		events []reports.EventRow
		want   map[string]int
	}{
		{"none", nil, nil},
		{"counted by tool", []reports.EventRow{ev(name("fetch"), trace.TypeToolCall, missing), ev(name("fetch"), trace.TypeToolCall, missing), ev(name("grep"), trace.TypeToolCall, missing)},
			map[string]int{"fetch": 2, "grep": 1}},
		{"other code", []reports.EventRow{ev(name("fetch"), trace.TypeToolCall, `{"error_code":"E-RUN-001","note":"`+errcode.ToolNotProvided+`"}`)}, nil},
		{"not a tool call", []reports.EventRow{ev(name("fetch"), "inference", missing)}, nil},
		{"no tool name", []reports.EventRow{ev(nil, trace.TypeToolCall, missing)}, nil},
	}
	for _, tt := range tests {
		if got := missingToolCalls(tt.events); !cmp.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
