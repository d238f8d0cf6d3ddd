package datasets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestLoadErrors is the one table of failures: each row lists the errors Load
// must report as "CODE line" (line 0 = the file itself, Where without ":line").
func TestLoadErrors(t *testing.T) {
	many := strings.Repeat(`{"task": "no id"}`+"\n", 25)
	var manyWant []string
	for n := 1; n <= maxReported; n++ {
		manyWant = append(manyWant, fmt.Sprintf("E-EVAL-001 %d", n))
	}
	manyWant = append(manyWant, "E-EVAL-001 0") // "... and 5 more bad lines"

	tests := []struct {
		name    string
		dataset string // "" with missing: no dataset file at all
		missing bool
		files   []string // task files (and folders, ending in /) to create
		want    []string
	}{
		{name: "dataset file missing", missing: true, want: []string{"E-IO-001 0"}},
		{name: "empty file", dataset: "", want: []string{"E-IO-003 0"}},
		{name: "only blank lines", dataset: "\n  \r\n\t\n", want: []string{"E-IO-003 0"}},
		{name: "bad JSON", dataset: `{"case_id": "a", "task": "x"` + "\n", want: []string{"E-EVAL-001 1"}},
		{name: "trailing garbage", dataset: `{"case_id": "a", "task": "x"} x`, want: []string{"E-EVAL-001 1"}},
		{name: "array line", dataset: "\n[1, 2]\n", want: []string{"E-EVAL-001 2"}},
		{name: "string line", dataset: `"case"`, want: []string{"E-EVAL-001 1"}},
		{name: "null line", dataset: `null`, want: []string{"E-EVAL-001 1"}},
		{name: "missing case_id", dataset: `{"task": "x"}`, want: []string{"E-EVAL-001 1"}},
		{name: "case_id is wrong key case", dataset: `{"Case_ID": "a", "task": "x"}`, want: []string{"E-EVAL-001 1"}},
		{name: "blank case_id", dataset: `{"case_id": " \t", "task": "x"}`, want: []string{"E-EVAL-001 1"}},
		{name: "numeric case_id", dataset: `{"case_id": 7, "task": "x"}`, want: []string{"E-EVAL-001 1"}},
		{name: "null case_id", dataset: `{"case_id": null, "task": "x"}`, want: []string{"E-EVAL-001 1"}},
		{name: "neither task nor task_path", dataset: `{"case_id": "a"}`, want: []string{"E-EVAL-001 1"}},
		{name: "both task and task_path", dataset: `{"case_id": "a", "task": "x", "task_path": "t.md"}`,
			files: []string{"t.md"}, want: []string{"E-EVAL-001 1"}},
		{name: "task not a string", dataset: `{"case_id": "a", "task": ["x"]}`, want: []string{"E-EVAL-001 1"}},
		{name: "task_path not a string", dataset: `{"case_id": "a", "task_path": {"p": 1}}`, want: []string{"E-EVAL-001 1"}},
		{name: "blank task", dataset: `{"case_id": "a", "task": "  "}`, want: []string{"E-EVAL-001 1"}},
		{name: "blank task_path", dataset: `{"case_id": "a", "task_path": ""}`, want: []string{"E-EVAL-001 1"}},
		{name: "task file missing", dataset: `{"case_id": "a", "task_path": "tasks/nope.md"}`, want: []string{"E-EVAL-001 1"}},
		{name: "task_path is a folder", dataset: `{"case_id": "a", "task_path": "tasks"}`,
			files: []string{"tasks/"}, want: []string{"E-EVAL-001 1"}},
		{name: "duplicate case_id", dataset: "{\"case_id\": \"a\", \"task\": \"x\"}\n\n{\"case_id\": \"a\", \"task\": \"y\"}\n",
			want: []string{"E-EVAL-001 3"}},
		{
			name: "every bad line is reported",
			dataset: `{"case_id": "ok", "task": "x"}` + "\n" +
				"not json\n" +
				`{"case_id": "ok", "task": "y"}` + "\n" +
				`{"case_id": "b"}` + "\n",
			want: []string{"E-EVAL-001 2", "E-EVAL-001 3", "E-EVAL-001 4"},
		},
		{name: "more than 20 bad lines", dataset: many, want: manyWant},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "cases.jsonl")
			if !tt.missing {
				writeFile(t, path, tt.dataset)
			}
			for _, f := range tt.files {
				if strings.HasSuffix(f, "/") {
					if err := os.MkdirAll(filepath.Join(dir, f), 0o755); err != nil {
						t.Fatal(err)
					}
					continue
				}
				writeFile(t, filepath.Join(dir, f), "task text")
			}
			ds, err := Load(path)
			if err == nil {
				t.Fatalf("Load() = %d cases, nil error; want errors %v", ds.Len(), tt.want)
			}
			if got, want := errcode.Code(err), strings.Fields(tt.want[0])[0]; got != want {
				t.Errorf("errcode.Code(err) = %q, want %q", got, want)
			}
			var got []string
			for _, e := range codedErrors(t, err) {
				line := "0"
				if rest, ok := strings.CutPrefix(e.Where, path+":"); ok {
					line = rest
				} else if e.Where != path {
					t.Errorf("Where = %q, want %q or %q:<line>", e.Where, path, path)
				}
				got = append(got, e.Code+" "+line)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// codedErrors flattens err (an *errcode.Error or a join of them).
func codedErrors(t *testing.T, err error) []*errcode.Error {
	t.Helper()
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	var out []*errcode.Error
	for _, e := range errs {
		var ce *errcode.Error
		if !errors.As(e, &ce) {
			t.Fatalf("error %v is not an *errcode.Error", e)
		}
		out = append(out, ce)
	}
	return out
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
