package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
)

// handOver makes the session's folders writable by the subprocess's
// unprivileged uid: each directory under dir is chowned to uid, except the
// staged tools/ tree. Files stay as they are: the files the harness wrote
// (trace.jsonl, task.md, the tools' hard links shared with other cases)
// remain the evaluator's and read-only to the tool.
func handOver(dir string, uid int) error {
	if uid == os.Getuid() {
		return nil
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if p == filepath.Join(dir, "tools") {
			return filepath.SkipDir
		}
		return os.Lchown(p, uid, uid)
	})
}
