package runfolder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/datasets"
)

// TestInputsDigest: every change to a file a dataset names changes the
// digest; moving the whole dataset folder elsewhere does not (shards from
// different checkouts agree).
func TestInputsDigest(t *testing.T) {
	setup := func(t *testing.T) (string, []datasets.Case) {
		dir := filepath.Join(t.TempDir(), "ds")
		for name, body := range map[string]string{"task.md": "Do it.", "repo/a.txt": "a\n", "repo/sub/b.txt": "b\n", "ws.tar": "tar bytes"} {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink("a.txt", filepath.Join(dir, "repo", "link")); err != nil {
			t.Fatal(err)
		}
		return dir, []datasets.Case{
			{ID: "a", TaskPath: filepath.Join(dir, "task.md"), Workspace: filepath.Join(dir, "repo"), WorkspaceKind: datasets.WorkspaceDir},
			{ID: "b", Task: "inline", Workspace: filepath.Join(dir, "ws.tar"), WorkspaceKind: datasets.WorkspaceTar},
			{ID: "c", TaskPath: filepath.Join(dir, "task.md")},
		}
	}
	digest := func(t *testing.T, dir string, cases []datasets.Case) string {
		t.Helper()
		d, err := InputsDigest(filepath.Join(dir, "cases.jsonl"), filesOf(cases))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	dir, cases := setup(t)
	ref := digest(t, dir, cases)

	changes := []struct {
		name   string
		change func(dir string) error
	}{
		{"task file edited", func(d string) error { return os.WriteFile(filepath.Join(d, "task.md"), []byte("Do it!"), 0o644) }},
		{"task file removed", func(d string) error { return os.Remove(filepath.Join(d, "task.md")) }},
		{"workspace file edited", func(d string) error { return os.WriteFile(filepath.Join(d, "repo/sub/b.txt"), []byte("B\n"), 0o644) }},
		{"workspace file added", func(d string) error { return os.WriteFile(filepath.Join(d, "repo/new"), nil, 0o644) }},
		{"workspace file renamed", func(d string) error { return os.Rename(filepath.Join(d, "repo/a.txt"), filepath.Join(d, "repo/c.txt")) }},
		{"workspace mode changed", func(d string) error { return os.Chmod(filepath.Join(d, "repo/a.txt"), 0o755) }},
		{"workspace link retargeted", func(d string) error {
			os.Remove(filepath.Join(d, "repo/link"))
			return os.Symlink("sub/b.txt", filepath.Join(d, "repo/link"))
		}},
		{"archive replaced", func(d string) error { return os.WriteFile(filepath.Join(d, "ws.tar"), []byte("other"), 0o644) }},
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			dir, cases := setup(t)
			if err := c.change(dir); err != nil {
				t.Fatal(err)
			}
			if got := digest(t, dir, cases); got == ref {
				t.Errorf("digest unchanged after: %s", c.name)
			}
		})
	}
	t.Run("same files in another folder", func(t *testing.T) {
		dir, cases := setup(t)
		if got := digest(t, dir, cases); got != ref {
			t.Errorf("digest %s in another folder, want %s", got, ref)
		}
	})
	t.Run("an unreadable workspace is an error naming it", func(t *testing.T) {
		dir, cases := setup(t)
		cases[0].Workspace = filepath.Join(dir, "task.md", "nope")
		_, err := InputsDigest(filepath.Join(dir, "cases.jsonl"), filesOf(cases))
		if err == nil || !strings.Contains(err.Error(), "task.md") {
			t.Errorf("err = %v", err)
		}
	})
}

// filesOf is the files cases name, as a run's survey gathers them.
func filesOf(cases []datasets.Case) InputFiles {
	f := InputFiles{}
	for _, c := range cases {
		f.Add(c)
	}
	return f
}
