package runfolder

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/errcode"
)

// InputsPart is the fingerprint part of the files a dataset's lines name:
// task files and workspaces. The dataset part covers the lines; this one
// covers what they point at, so that --resume refuses a run whose task
// file or workspace changed since it started, and merge refuses shards
// that read different ones.
const InputsPart = "inputs"

// InputFiles are the files a dataset's lines name, by path, with their
// kind: "task" or a workspace kind.
type InputFiles map[string]string

// Add records the files c names.
func (f InputFiles) Add(c datasets.Case) {
	if c.TaskPath != "" {
		f[c.TaskPath] = "task"
	}
	if c.Workspace != "" {
		f[c.Workspace] = c.WorkspaceKind
	}
}

// InputsDigest hashes every task file and workspace source the dataset's
// cases name (all of them, not only this shard's: shards of one run must
// agree), each once, in path order. A path is hashed relative to the
// dataset's folder, so shards run from different checkouts agree. A
// workspace folder is hashed entry by entry (name, type, mode bits,
// content or link target) without following links; a file that is absent
// hashes as absent (murmur runs such a case with no task).
func InputsDigest(datasetPath string, paths InputFiles) (string, error) {
	base := filepath.Dir(datasetPath)
	names := make([]string, 0, len(paths))
	for p := range paths {
		names = append(names, p)
	}
	slices.Sort(names)
	h := sha256.New()
	for _, p := range names {
		rel := p
		if r, err := filepath.Rel(base, p); err == nil {
			rel = r
		}
		fmt.Fprintf(h, "%s %q\n", paths[p], filepath.ToSlash(rel))
		var err error
		if paths[p] == datasets.WorkspaceDir {
			err = hashTree(h, p)
		} else {
			err = hashFile(h, p)
		}
		if err != nil {
			return "", errcode.Wrap(errcode.IO, err, "fingerprint %s", p)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashFile writes the digest of one file's content, or "absent".
func hashFile(h hash.Hash, path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		_, err = io.WriteString(h, "absent\n")
		return err
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sum := sha256.New()
	if _, err := io.Copy(sum, f); err != nil {
		return err
	}
	fmt.Fprintf(h, "%x\n", sum.Sum(nil))
	return nil
}

// hashTree writes every entry beneath root, in lexical order, without
// following links.
func hashTree(h hash.Hash, root string) error {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "  %q %s %o ", filepath.ToSlash(rel), info.Mode().Type(), info.Mode().Perm())
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "-> %q\n", target)
		case d.Type().IsRegular():
			return hashFile(h, path)
		default:
			_, err = io.WriteString(h, "\n")
			return err
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		_, err = io.WriteString(h, "absent\n")
	}
	return err
}
