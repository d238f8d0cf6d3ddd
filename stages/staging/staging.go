// Package staging is the Stage stage (named staging so nobody writes
// stage.Stage): it makes every file of a case's session. Per case it
// creates the session folder in murmur's layout: the workspace, tools/<name>/
// with the tool's murmur.yaml (and a native tool's binary: hard links to
// the run-level copies written once, not copies; a WASM tool's module is
// compiled, never installed, as in murmur), each local-source skill's
// skill.md, task.md, logs/ and out/, the setup command's effects, then the
// run's warnings in logs/bootstrap.log. After
// the run's first successful staging it writes murmur.lock if the project
// has none, as `mur eval run` does.
package staging

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/datasets/workspace"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
	"github.com/murmur-nexus/murmur-eval/stages/resolve"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
)

// Name is the stage's name in the graph.
const Name = "stage"

// Result is the key of the stage's result, the case's *Staged.
var Result = pipeline.NewKey[*Staged](Name) //nolint:gochecknoglobals // a constant key (Go has no const of a generic type)

// Decl declares the stage to the graph (package stages wires the table).
var Decl = pipeline.Decl{Name: Name, Produces: Result, Requires: []string{resolve.Name, verify.Name}} //nolint:gochecknoglobals // a declaration, as go/analysis's Analyzer values

// Staged is what Stage made of a case's session folder: the task it wrote
// to task.md (handed on to the loop, which does not read the file back)
// and the workspace it cloned (nil when the line names none).
type Staged struct {
	Task      string
	Workspace *Workspace
	// WorkdirMaxFiles is the case's bound on the entries in its session
	// (capsule.Resources.WorkdirMaxFiles): Options.WorkdirMaxFiles, raised
	// by a copied workspace's entries (Workspace.WorkdirMaxFiles).
	WorkdirMaxFiles uint64
}

// Workspace is a case's workspace: the run's base it was cloned from.
type Workspace struct {
	Base  *workspace.Base
	Clone workspace.CloneResult
	set   *workspace.Set // the run's, which releases an overlay
	dir   string         // the session folder
}

// Stage is the Stage stage. It is safe for concurrent use. Build it with
// New: the zero Stage stages sessions but keeps no run state, so it writes
// no lock and reads local skills for every case.
type Stage struct {
	run  *runState
	opts Options
}

// New returns a Stage for one run.
func New() Stage { return Stage{run: &runState{}} }

// Name returns "stage".
func (Stage) Name() string { return Name }

// Run creates the case's session folder, then, on the run's first success,
// the project's murmur.lock if there is none.
func (s Stage) Run(ctx context.Context, c *pipeline.Case) error {
	cap, err := pipeline.ResultOf(c, resolve.Result)
	if err != nil {
		return err
	}
	ts, err := pipeline.ResultOf(c, verify.Result)
	if err != nil {
		return err
	}
	in, err := pipeline.InputOf[datasets.Case](c)
	if err != nil {
		return err
	}
	if c.SessionDir == "" {
		return errcode.New(errcode.Internal, "stage: case %q has no session folder", c.ID)
	}
	skills, err := s.localSkills(ctx, cap.Manifest)
	if err != nil {
		return err
	}
	// The session folder is new (its id is too), so below it plain Mkdir
	// will do: MkdirAll would first stat every path it creates, and
	// file-system calls are most of a trivial case's cost (BENCHMARKS.md).
	if err := os.Mkdir(c.SessionDir, 0o755); err != nil { // sessions/ is the run's: one call
		if err := os.MkdirAll(c.SessionDir, 0o755); err != nil {
			return errcode.Wrap(errcode.IO, err, "create session folder")
		}
	}
	// The workspace first: its names never collide with the session's own
	// (workspace.Reserved are refused when its base is read).
	ws, err := s.populate(ctx, c, in, ts)
	if err != nil {
		return err
	}
	// Stored now: Report diffs the workspace even when a later step fails.
	st := &Staged{Workspace: ws, WorkdirMaxFiles: ws.WorkdirMaxFiles(s.opts.WorkdirMaxFiles)}
	pipeline.Store(c, Result, st)
	for _, d := range []string{"logs", "out", "tools"} {
		if err := mkdir(filepath.Join(c.SessionDir, d)); err != nil {
			return errcode.Wrap(errcode.IO, err, "create session folder")
		}
	}
	if err := s.installTools(ctx, c.SessionDir, ts); err != nil {
		return err
	}
	for _, sk := range skills {
		dir := filepath.Join(c.SessionDir, "tools", sk.Name)
		if err := mkdir(dir); err != nil {
			return errcode.Wrap(errcode.IO, err, "create %s", dir)
		}
		if err := os.WriteFile(filepath.Join(dir, "skill.md"), sk.Text, 0o644); err != nil {
			return errcode.Wrap(errcode.IO, err, "stage tools/%s/skill.md", sk.Name)
		}
	}
	task, err := in.ReadTask()
	if err != nil {
		return err
	}
	// 0600: a task_path may name any file the evaluator can read; only the
	// tool's uid gets task.md (sandbox's handOver gives it at each call).
	if err := sessionfs.WriteFile(c.SessionDir, "task.md", []byte(task), 0o600); err != nil {
		return keepCode(err, "write task.md")
	}
	if err := s.setup(ctx, c, in, cap, ts, ws); err != nil {
		return err
	}
	if err := launchFiles(c.SessionDir, ts); err != nil {
		return err
	}
	if s.run != nil {
		s.run.lock.write(cap.Manifest, ts.Artifacts)
	}
	st.Task = task
	return nil
}

// CapsuleHome is the subprocesses' HOME, relative to the session folder.
// Stage does not create it: as murmur does, the launch creates it before
// each shell or native tool runs, so a session where none runs is spared
// a folder (stages/launch, subprocess.go).
const CapsuleHome = ".capsule-home"

// launchFiles are the files murmur's launch adds to a session before the
// loop: the run's warnings appended to logs/bootstrap.log, after the setup
// command, through sessionfs (the setup ran in the folder).
func launchFiles(dir string, ts *verify.Toolset) error {
	if len(ts.Warnings) == 0 {
		return nil
	}
	const p = "logs/bootstrap.log"
	if err := sessionfs.AppendFile(dir, p, []byte(strings.Join(ts.Warnings, "\n")+"\n"), 0o644); err != nil {
		return keepCode(err, "write %s", p)
	}
	return nil
}

// keepCode adds what failed to a session file's error, which keeps its
// own code (sessionfs: a name refused is E-EVL-040, a folder gone
// E-IO-001); only an uncoded failure is E-IO-003.
func keepCode(err error, format string, args ...any) error {
	return errcode.WrapKeep(errcode.IO, err, format, args...)
}

// Lock reports whether this run wrote the project's murmur.lock, and the
// last failure to write it (murmur ignores those: the case still counts).
func (s Stage) Lock() (written bool, err error) {
	if s.run == nil {
		return false, nil
	}
	return s.run.lock.result()
}

func (s Stage) localSkills(ctx context.Context, m *capsule.Manifest) ([]capsule.LocalSkill, error) {
	read := func(context.Context) ([]capsule.LocalSkill, error) { return capsule.ReadLocalSkills(m) }
	if s.run == nil {
		return read(ctx)
	}
	return s.run.skills.Get(ctx, read)
}

type runState struct {
	skills pipeline.Memo[[]capsule.LocalSkill]
	// shared maps each tool's files to their run-level copies (tool name,
	// then file name, to path), written once.
	shared pipeline.Memo[map[string]map[string]string]
	lock   lockWriter
}

// installTools gives the session each tool's files in tools/<name>/: hard
// links to run-level copies written once under Options.StagedDir (a Stage
// without one writes them into each session). A tool with no file (a
// shell.allow binary) gets no folder.
func (s Stage) installTools(ctx context.Context, sessionDir string, ts *verify.Toolset) error {
	var shared map[string]map[string]string
	if s.run != nil && s.opts.StagedDir != "" {
		var err error
		if shared, err = s.run.shared.Get(ctx, func(context.Context) (map[string]map[string]string, error) {
			return writeShared(s.opts.StagedDir, ts)
		}); err != nil {
			return err
		}
	}
	for name, t := range ts.Tools {
		if len(t.Files) == 0 {
			// A shell.allow binary: murmur stages a generic murmur.yaml
			// for it, murmur-eval none (MURMUR.md lists the same line
			// without it), so an empty folder would be a stray entry.
			continue
		}
		dir := filepath.Join(sessionDir, "tools", name)
		if err := mkdir(dir); err != nil {
			return errcode.Wrap(errcode.IO, err, "create %s", dir)
		}
		for _, f := range t.Files {
			dst := filepath.Join(dir, f.Name)
			var err error
			if src, ok := shared[name][f.Name]; ok {
				err = linkOrCopy(src, dst)
			} else {
				err = os.WriteFile(dst, f.Data, f.Mode)
			}
			if err != nil {
				return errcode.Wrap(errcode.IO, err, "stage tools/%s/%s", name, f.Name)
			}
		}
	}
	return nil
}

// writeShared writes every tool's files once under stagedDir/<name>/,
// read-only (native tools executable), for the sessions to link.
func writeShared(stagedDir string, ts *verify.Toolset) (map[string]map[string]string, error) {
	out := make(map[string]map[string]string, len(ts.Tools))
	for name, t := range ts.Tools {
		if len(t.Files) == 0 {
			continue
		}
		dir := filepath.Join(stagedDir, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, errcode.Wrap(errcode.IO, err, "create %s", dir)
		}
		out[name] = make(map[string]string, len(t.Files))
		for _, f := range t.Files {
			p := filepath.Join(dir, f.Name)
			_ = os.Remove(p)
			if err := os.WriteFile(p, f.Data, f.Mode); err != nil {
				return nil, errcode.Wrap(errcode.IO, err, "write %s", p)
			}
			out[name][f.Name] = p
		}
	}
	return out, nil
}

// mkdir creates dir, which may already exist (a skill named as a tool).
func mkdir(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
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
