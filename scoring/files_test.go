package scoring

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFileScorers(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("notes/shopping.md", "remember the milk\n")
	write("hello.txt", "hello")
	if err := os.MkdirAll(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("milk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	helloSum := "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
	zeroSum := strings.Repeat("0", 64)

	tests := []struct {
		name string
		spec string
		want Score
	}{
		{"exists", `"hello.txt": true`, Score{"file:hello.txt", TypeFile, true, 1, "hello.txt exists", false, false, nil}},
		{"contains and sha256", `"notes/shopping.md": {"contains": ["milk", "remember"]}, "hello.txt": {"sha256": "` + helloSum + `"}`,
			Score{"file:hello.txt", TypeFile, true, 1, "hello.txt exists, has the wanted sha256", false, false, nil}},
		{"contains", `"notes/shopping.md": {"contains": ["milk", "remember"]}`,
			Score{"file:notes/shopping.md", TypeFile, true, 1, `notes/shopping.md exists, contains "milk", "remember"`, false, false, nil}},
		{"missing", `"notes/todo.md": true`, Score{"file:notes/todo.md", TypeFile, false, 0, "notes/todo.md does not exist", false, false, nil}},
		{"absent as wanted", `"outside.txt": false`, Score{"file:outside.txt", TypeFile, true, 1, "outside.txt does not exist, as wanted", false, false, nil}},
		{"present but should be absent", `"hello.txt": false`, Score{"file:hello.txt", TypeFile, false, 0, "hello.txt exists, want it absent", false, false, nil}},
		{"lacks text", `"notes/shopping.md": {"contains": ["milk", "eggs", "bread"]}`,
			Score{"file:notes/shopping.md", TypeFile, false, 0.5, `notes/shopping.md lacks "eggs", "bread" (1 of 3 found) in "remember the milk\n"`, false, false, nil}},
		{"wrong sha256", `"hello.txt": {"contains": "hell", "sha256": "` + zeroSum + `"}`,
			Score{"file:hello.txt", TypeFile, false, 2.0 / 3, "hello.txt has sha256 " + helloSum + ", want " + zeroSum, false, false, nil}},
		{"a directory is not a file", `"adir": true`, Score{"file:adir", TypeFile, false, 0, "adir is not a regular file", false, false, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok, err := ParseExpected(json.RawMessage(`{"files": {` + tt.spec + `}}`))
			if err != nil || !ok {
				t.Fatalf("ParseExpected: %v %v", ok, err)
			}
			scores, err := e.fileScores(dir)
			if err != nil {
				t.Fatal(err)
			}
			var got Score
			for _, s := range scores {
				if s.Name == tt.want.Name {
					got = s
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("score (-want +got):\n%s", diff)
			}
		})
	}

	// A symlink out of the session folder is not followed.
	e, _, _ := ParseExpected(json.RawMessage(`{"files": {"link.txt": {"contains": "milk"}}}`))
	scores, err := e.fileScores(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s := scores[0]; s.Pass || !strings.Contains(s.Reason, "cannot be opened") {
		t.Errorf("symlink escaping the session: %+v, want a failure that it cannot be opened", s)
	}
	// A session folder that is gone is an error, not a model failure.
	if _, err := e.fileScores(filepath.Join(dir, "no-such-dir")); err == nil {
		t.Errorf("fileScores on a missing session folder: nil error, want one")
	}
}
