package datasets

import (
	"bytes"
	"errors"
	"io/fs"
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
