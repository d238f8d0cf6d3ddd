package datasets

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Dataset is a loaded dataset file.
type Dataset struct {
	// Path is the dataset file as given to Load.
	Path string
	// Cases are the dataset's cases in file order.
	Cases []Case
}

// Load reads and validates the dataset at path. Relative task paths are
// resolved against the absolute folder of path, and every task file must
// exist (it is read later, by Case.ReadTask). A missing dataset is E-IO-001,
// bad lines are E-EVAL-001 (see Parse), a dataset without cases is E-IO-003.
func Load(path string) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, openError(path, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, errcode.New(errcode.IO, "dataset is a directory, not a JSONL file").At(path).
			WithHint("pass the dataset file, e.g. --dataset %s", filepath.Join(path, "cases.jsonl"))
	}
	base, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "cannot resolve the dataset's folder").At(path)
	}
	cases, err := Parse(path, f, base, statTaskFile)
	if err != nil {
		return nil, err
	}
	return &Dataset{Path: path, Cases: cases}, nil
}

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

// statTaskFile checks that a task file exists without reading it.
func statTaskFile(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return errors.New("is a directory, not a file")
	}
	return nil
}
