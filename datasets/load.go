package datasets

import (
	"errors"
	"hash/maphash"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Dataset is a loaded dataset file: its cases, validated, by index in
// file order (Len, ID, Case, All). It holds the file open to read each
// case's line again when the case runs (Case); Close releases it.
type Dataset struct {
	// Path is the dataset file as given to Load.
	Path string

	file *os.File
	// parser reads a line again as the load read it (a template: Case
	// copies it).
	parser parser
	idx    index
	// spans holds the *[]byte buffers readLine reads a block into, reused
	// from case to case (a block is up to 4 KiB; the line is copied out).
	spans sync.Pool
	// fromWorkDir are the ids of the cases whose task_path was found from
	// the working directory.
	fromWorkDir []string
}

// Options change how Load reads a dataset; the zero value is the safe
// default.
type Options struct {
	// AllowTaskOutside lets task_path name a file outside the dataset's
	// folder (absolute, through .., or through a symlink):
	// --allow-task-outside-dataset. Off, such a line is E-EVAL-001. The
	// same holds for a workspace.
	AllowTaskOutside bool
	// WorkingDir is where a relative task_path not found from the dataset's
	// folder is tried next, as murmur reads every task_path: "" is the
	// process's working directory. The file must still lie inside the
	// dataset's folder unless AllowTaskOutside.
	WorkingDir string
	// Visit, when not nil, is called in the load's one pass with each
	// good case and its index, in file order: what a caller needs of every
	// case before the run (its checks, the files it names) is gathered
	// there, not by reading the dataset again. Its results mean nothing
	// when Load fails.
	Visit func(i int, c Case)
}

// Load reads and validates the dataset at path. Relative task paths are
// resolved against the absolute folder of path; every task file must be a
// regular file that, symlinks resolved, lies inside that folder unless
// o.AllowTaskOutside (it is read later, by Case.ReadTask). A missing
// dataset is E-IO-001, bad lines are E-EVAL-001 (see parse), a dataset
// without cases is E-IO-003.
func Load(path string) (*Dataset, error) { return Options{}.Load(path) }

// Load is the package's Load with o's settings.
func (o Options) Load(path string) (_ *Dataset, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, openError(path, err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
		}
	}()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, errcode.New(errcode.IO, "dataset is a directory, not a JSONL file").At(path).
			WithHint("pass the dataset file, e.g. --dataset %s", filepath.Join(path, "cases.jsonl"))
	}
	base, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "cannot resolve the dataset's folder").At(path)
	}
	root, err := filepath.EvalSymlinks(base)
	if err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "cannot resolve the dataset's folder").At(path)
	}
	tasks := taskFiles{root: root, allowOutside: o.AllowTaskOutside}
	wd := o.WorkingDir
	if wd == "" {
		wd, _ = os.Getwd()
	}
	if wd != "" {
		wd, _ = filepath.Abs(wd)
	}
	d := &Dataset{Path: path, file: f,
		parser: parser{name: path, baseDir: base, workDir: wd, checkTask: tasks.check, checkWorkspace: tasks.checkWorkspace}}
	x := indexer{seed: maphash.MakeSeed()}
	err = parseWith(d.parser, f, func(c Case, line []byte, off int64) *errcode.Error {
		if c.TaskFromWorkingDir {
			d.fromWorkDir = append(d.fromWorkDir, c.ID)
		}
		if err := x.add(c.ID, line, off, c.Line); err != nil {
			return err
		}
		if o.Visit != nil {
			o.Visit(len(x.sums)-1, c)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	d.idx = x.done()
	return d, nil
}

// Close closes the dataset file; Case and All fail afterwards.
func (d *Dataset) Close() error { return d.file.Close() }

func openError(path string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errcode.Wrap(errcode.IONotFound, err, "dataset not found").At(path).
			WithHint("check the --dataset path")
	case errors.Is(err, fs.ErrPermission):
		return errcode.Wrap(errcode.IOPermission, err, "cannot open dataset").At(path)
	}
	return errcode.Wrap(errcode.IO, err, "cannot open dataset").At(path)
}

// FromWorkingDir returns the ids of the cases whose task_path was found
// relative to the working directory (Case.TaskFromWorkingDir), in order.
func (d *Dataset) FromWorkingDir() []string { return d.fromWorkDir }
