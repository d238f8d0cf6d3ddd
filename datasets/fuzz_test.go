package datasets

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"case_id": "a", "task": "x"}`,
		"\ufeff" + `{"case_id": "a", "task_path": "t.md", "expected": {"result_contains": "42"}}` + "\r\n",
		`{"case_id": "a", "task_path": "missing.md"}`,
		`{"case_id": "a", "task_path": "../out.md"}`,
		"{\"case_id\": \"a\", \"task\": \"x\"}\n{\"case_id\": \"a\", \"task\": \"y\"}\n",
		"\n\n  \n",
		`{"case_id": " ", "task": "x"}`,
		`{"case_id": "\u00e9\ud800", "task": "x"}`,
		"{\"case_id\": \"\xff\", \"task\": \"x\"}\n{\"case_id\": \"\xfe\", \"task\": \"x\"}",
		`[1, {"case_id": "a"}]`,
		`{"case_id": "a", "task": "x", "task_path": "t.md"}`,
		`null`,
		`{"case_id": "a", "task": "x", "workspace": "repo", "setup": "git init -q"}`,
		`{"case_id": "a", "task": "x", "workspace": "", "setup": {"command": ["a"], "timeout_seconds": -1}}`,
		"",
	} {
		f.Add([]byte(seed))
	}
	stat := func(p string) (string, string, error) {
		switch {
		case strings.HasSuffix(p, "t.md"):
			return "/base", "t.md", nil
		case strings.HasSuffix(p, "out.md"):
			return "", "", &outsideError{resolved: "/etc/out.md"}
		}
		return "", "", fs.ErrNotExist
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cases, err := parse("fuzz.jsonl", bytes.NewReader(data), "/base", stat)
		if err != nil {
			if code := errcode.Code(err); code != errcode.EvalDataset && code != errcode.IO {
				t.Fatalf("Parse() error code %q, want E-EVAL-001 or E-IO-003: %v", code, err)
			}
			var ce *errcode.Error
			if !errors.As(err, &ce) || ce.Where == "" {
				t.Fatalf("Parse() error has no location: %v", err)
			}
			return
		}
		if len(cases) == 0 {
			t.Fatal("Parse() returned no cases and no error")
		}
		seen := map[string]bool{}
		for _, c := range cases {
			if strings.TrimSpace(c.ID) == "" {
				t.Fatalf("case on line %d has blank ID %q", c.Line, c.ID)
			}
			if seen[c.ID] {
				t.Fatalf("duplicate ID %q", c.ID)
			}
			seen[c.ID] = true
			if c.TaskPath != "" && (c.taskRoot != "/base" || c.taskRel != "t.md") {
				t.Fatalf("case %q: task file %q read at %q %q, want beneath the dataset's folder", c.ID, c.TaskPath, c.taskRoot, c.taskRel)
			}
			if (c.Task == "") == (c.TaskPath == "") {
				t.Fatalf("case %q: want exactly one of Task %q and TaskPath %q", c.ID, c.Task, c.TaskPath)
			}
		}
	})
}

// FuzzIndexReadsBack: whatever the bytes, a dataset that loads reads every
// case back from its index (Dataset.Case) as the one-pass parse read it:
// same id, line, task and expected, in file order.
func FuzzIndexReadsBack(f *testing.F) {
	for _, seed := range []string{
		`{"case_id": "a", "task": "x"}`,
		"\ufeff\n\n" + `{"case_id": "a", "task": "x", "expected": [1, 2]}` + "\r\n \n" + `{"case_id": "b", "task": "y"}`,
		"{\"case_id\": \"a\", \"task\": \"x\"}\n\n\n{\"case_id\": \"b\", \"task\": \"\\u00e9\"}\n\t\n{\"case_id\": \"c\", \"task\": \"z\"}",
	} {
		f.Add([]byte(seed))
	}
	// Enough cases, and lines long enough, for several blocks.
	var many strings.Builder
	for i := range 70 {
		fmt.Fprintf(&many, "{\"case_id\": \"case-%d\", \"task\": \"%s\"}\n", i, strings.Repeat("x", i*i))
		if i%9 == 0 {
			many.WriteString(" \n")
		}
	}
	f.Add([]byte(many.String()))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "cases.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		ds, err := Load(path)
		if err != nil {
			return
		}
		defer ds.Close()
		want, err := parse(path, bytes.NewReader(data), filepath.Dir(path), nil)
		if err != nil {
			t.Fatalf("Load accepted what parse refused: %v", err)
		}
		if ds.Len() != len(want) {
			t.Fatalf("Len() = %d, parse found %d cases", ds.Len(), len(want))
		}
		for i, w := range want {
			c, err := ds.Case(i)
			if err != nil {
				t.Fatalf("Case(%d): %v", i, err)
			}
			if c.ID != w.ID || ds.ID(i) != w.ID || c.Line != w.Line || ds.Line(i) != w.Line || c.Task != w.Task || !bytes.Equal(c.Expected, w.Expected) {
				t.Fatalf("Case(%d) = %q line %d task %q expected %s; parse read %q line %d task %q expected %s",
					i, c.ID, c.Line, c.Task, c.Expected, w.ID, w.Line, w.Task, w.Expected)
			}
		}
	})
}
