// Package staging is the Stage stage (named staging so nobody writes
// stage.Stage). Per case it creates the session folder in murmur's layout:
// tools/<name>/ with the tool's murmur.yaml and module (hard links to the
// run-level copies Verify wrote, not copies), task.md, logs/ and out/.
package staging

import (
	"context"
	"os"
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
)

// Name is the stage's name in the graph.
const Name = "stage"

// Stage is the Stage stage. It holds no state.
type Stage struct{}

// Name returns "stage".
func (Stage) Name() string { return Name }

// Run creates the case's session folder.
func (Stage) Run(_ context.Context, c *pipeline.Case) error {
	if c.Toolset == nil || c.SessionDir == "" {
		return errcode.New(errcode.Internal, "stage: verify did not run")
	}
	for _, d := range []string{"logs", "out", "tools"} {
		if err := os.MkdirAll(filepath.Join(c.SessionDir, d), 0o755); err != nil {
			return errcode.Wrap(errcode.IO, err, "create session folder")
		}
	}
	for name, t := range c.Toolset.Tools {
		dir := filepath.Join(c.SessionDir, "tools", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return errcode.Wrap(errcode.IO, err, "create %s", dir)
		}
		for file, src := range t.Files {
			if err := linkOrCopy(src, filepath.Join(dir, file)); err != nil {
				return errcode.Wrap(errcode.IO, err, "stage tools/%s/%s", name, file)
			}
		}
	}
	task, err := c.Input.ReadTask()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.SessionDir, "task.md"), []byte(task), 0o644); err != nil {
		return errcode.Wrap(errcode.IO, err, "write task.md")
	}
	return nil
}

// linkOrCopy hard-links src to dst, copying when the two are on different
// file systems (or links are refused).
func linkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o444)
}
