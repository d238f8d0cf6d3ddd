package datasets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// murmur-eval's extension to the dataset line (docs/workspaces.md):
//
//	{"case_id": "fix-1", "task": "...", "workspace": "repos/calc.tar.gz", "setup": "git init -q"}
//
// workspace names a folder or an archive (.tar, .tar.gz or .tgz, .zip)
// whose files each case's session starts with; setup is a command run in
// the session after the workspace is in place and before the agent starts.

// DefaultSetupTimeout bounds a setup command without its own
// timeout_seconds.
const DefaultSetupTimeout = 5 * time.Minute

// Workspace kinds.
const (
	WorkspaceDir   = "dir"
	WorkspaceTar   = "tar"
	WorkspaceTarGz = "tar.gz"
	WorkspaceZip   = "zip"
)

// Setup is a case's setup command.
type Setup struct {
	// Argv is the command: ["sh", "-c", text] for a string, the list
	// itself for a list of arguments.
	Argv []string
	// Timeout is timeout_seconds, or DefaultSetupTimeout.
	Timeout time.Duration
}

// WorkspaceKind returns the kind of a workspace source by its name and
// whether it is a folder: WorkspaceDir, WorkspaceTar, WorkspaceTarGz,
// WorkspaceZip, or "" for a file of another kind.
func WorkspaceKind(path string, isDir bool) string {
	if isDir {
		return WorkspaceDir
	}
	name := strings.ToLower(filepath.Base(path))
	switch {
	case strings.HasSuffix(name, ".tar.gz"), strings.HasSuffix(name, ".tgz"):
		return WorkspaceTarGz
	case strings.HasSuffix(name, ".tar"):
		return WorkspaceTar
	case strings.HasSuffix(name, ".zip"):
		return WorkspaceZip
	}
	return ""
}

// fieldError is a line error about one field: parse locates it at
// file:line:field.
func fieldError(field string, e *errcode.Error) *errcode.Error { return e.At(field) }

// workspace validates the workspace field: a non-blank path, relative to
// the dataset's folder, naming a folder or an archive inside that folder
// (symlinks resolved) unless the load allows files outside. It returns the
// resolved path and its kind; "" when the line has none.
func (p *parser) workspace(obj map[string]json.RawMessage, id string) (path, kind string, _ *errcode.Error) {
	given, present, err := stringField(obj, "workspace")
	if err != nil {
		return "", "", fieldError("workspace", err.WithHint(`"workspace" is the path of a folder or a .tar, .tar.gz or .zip archive, relative to the dataset's folder`))
	}
	if !present {
		return "", "", nil
	}
	if strings.TrimSpace(given) == "" {
		return "", "", fieldError("workspace", errcode.New(errcode.EvalDataset, `case %q: "workspace" is blank`, id).
			WithHint(`name a folder or a .tar, .tar.gz or .zip archive, relative to the dataset's folder`))
	}
	path = given
	if !filepath.IsAbs(given) {
		path = filepath.Join(p.baseDir, given)
	}
	if p.checkWorkspace == nil {
		return path, WorkspaceKind(path, strings.HasSuffix(given, "/")), nil
	}
	resolved, kind, cerr := p.checkWorkspace(path)
	var outside *outsideError
	switch {
	case cerr == nil:
		return resolved, kind, nil
	case errors.As(cerr, &outside):
		return "", "", fieldError("workspace", errcode.New(errcode.EvalDataset, `case %q: "workspace" %q %s %s`, id, given, outside.Error(), p.baseDir).
			WithHint("move the workspace into %s, or pass --allow-task-outside-dataset (env MURMUR_EVAL_ALLOW_TASK_OUTSIDE_DATASET=true) if you trust this dataset to name files anywhere", p.baseDir))
	case errors.Is(cerr, fs.ErrNotExist):
		return "", "", fieldError("workspace", errcode.New(errcode.EvalDataset, "case %q: workspace not found: %s", id, path).
			WithHint("workspace %q is resolved relative to the dataset's folder %s", given, p.baseDir))
	}
	return "", "", fieldError("workspace", errcode.Wrap(errcode.EvalDataset, cerr, `case %q: "workspace": unusable workspace %s`, id, path).
		WithHint("a workspace is a folder or a .tar, .tar.gz (.tgz) or .zip archive"))
}

// checkWorkspace resolves a workspace path (symlinks included) and returns
// it with its kind. Like a task file it must lie inside the dataset's
// folder unless allowed (an *outsideError otherwise).
func (t taskFiles) checkWorkspace(path string) (resolved, kind string, err error) {
	resolved, err = filepath.EvalSymlinks(path)
	if err != nil {
		return "", "", err
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return "", "", err
	}
	switch {
	case fi.IsDir():
		kind = WorkspaceDir
	case fi.Mode().IsRegular():
		if kind = WorkspaceKind(resolved, false); kind == "" {
			return "", "", fmt.Errorf("%s is neither a folder nor a .tar, .tar.gz, .tgz or .zip archive", filepath.Base(resolved))
		}
	default:
		return "", "", notRegular(fi.Mode())
	}
	rel, rerr := filepath.Rel(t.root, resolved)
	switch {
	case rerr == nil && rel == ".":
		// The dataset's own folder holds the dataset and its expected
		// answers: never a session's files.
		return "", "", errors.New("is the dataset's own folder; name a folder inside it")
	case rerr == nil && filepath.IsLocal(rel):
		return resolved, kind, nil
	}
	if t.allowOutside {
		return resolved, kind, nil
	}
	return "", "", &outsideError{resolved: resolved}
}

// setup validates the setup field: "shell command", ["argv", ...] or
// {"command": either, "timeout_seconds": N}. nil when the line has none.
func setupField(obj map[string]json.RawMessage, id string) (*Setup, *errcode.Error) {
	raw, ok := obj["setup"]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	s, err := parseSetup(raw)
	if err != nil {
		return nil, fieldError("setup", errcode.New(errcode.EvalDataset, `case %q: "setup": %v`, id, err).
			WithHint(`"setup" is a shell command string ("git init -q"), a list of arguments, or {"command": ..., "timeout_seconds": N}`))
	}
	return s, nil
}

func parseSetup(v json.RawMessage) (*Setup, error) {
	s := &Setup{Timeout: DefaultSetupTimeout}
	cmd := v
	if bytes.HasPrefix(bytes.TrimSpace(v), []byte("{")) {
		var o struct {
			Command json.RawMessage `json:"command"`
			Timeout *float64        `json:"timeout_seconds"`
		}
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil || o.Command == nil {
			return nil, errors.New(`want {"command": ..., "timeout_seconds": N}`)
		}
		if o.Timeout != nil {
			if !(*o.Timeout > 0 && *o.Timeout <= 24*3600) {
				return nil, fmt.Errorf("timeout_seconds %v: want more than 0 and at most a day", *o.Timeout)
			}
			s.Timeout = time.Duration(*o.Timeout * float64(time.Second))
		}
		cmd = o.Command
	}
	var shell string
	if json.Unmarshal(cmd, &shell) == nil {
		if strings.TrimSpace(shell) == "" {
			return nil, errors.New("the command is empty")
		}
		s.Argv = []string{"sh", "-c", shell}
		return s, nil
	}
	if json.Unmarshal(cmd, &s.Argv) != nil || len(s.Argv) == 0 || s.Argv[0] == "" {
		return nil, errors.New("want a shell command string or a non-empty list of arguments")
	}
	return s, nil
}
