// Package staging is the Stage stage (named staging so nobody writes
// stage.Stage). Per case it creates the session folder in murmur's layout:
// tools/<name>/ with the tool's murmur.yaml and module (hard links to the
// run-level copies Verify wrote, not copies), each local-source skill's
// skill.md, task.md, logs/ and out/. After the run's first successful
// staging it writes murmur.lock if the project has none, as `mur eval run`
// does.
package staging

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/datasets/workspace"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/stages/resolve"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
)

// Name is the stage's name in the graph.
const Name = "stage"

// Result is the key of the stage's result, the case's *Staged.
var Result = pipeline.NewKey[*Staged](Name) //nolint:gochecknoglobals // a constant key (Go has no const of a generic type)

// Requires are the stages whose results Stage reads.
var Requires = []string{resolve.Name, verify.Name} //nolint:gochecknoglobals // read-only list of the stage's requirements

// Staged is what Stage made of a case's session folder: the task it wrote
// to task.md (handed on to the loop, which does not read the file back)
// and the workspace it cloned (nil when the line names none).
type Staged struct {
	Task      string
	Workspace *Workspace
}

// Workspace is a case's workspace: the run's base it was cloned from.
type Workspace struct {
	Base  *workspace.Base
	Clone workspace.CloneResult
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
	if err := os.MkdirAll(c.SessionDir, 0o755); err != nil {
		return errcode.Wrap(errcode.IO, err, "create session folder")
	}
	// The workspace first: its names never collide with the session's own
	// (workspace.Reserved are refused when its base is read).
	ws, err := s.populate(ctx, c, in, ts)
	if err != nil {
		return err
	}
	// Stored now: Report diffs the workspace even when a later step fails.
	st := &Staged{Workspace: ws}
	pipeline.Store(c, Result, st)
	for _, d := range []string{"logs", "out", "tools"} {
		if err := mkdir(filepath.Join(c.SessionDir, d)); err != nil {
			return errcode.Wrap(errcode.IO, err, "create session folder")
		}
	}
	for name, t := range ts.Tools {
		dir := filepath.Join(c.SessionDir, "tools", name)
		if err := mkdir(dir); err != nil {
			return errcode.Wrap(errcode.IO, err, "create %s", dir)
		}
		for file, src := range t.Files {
			if err := linkOrCopy(src, filepath.Join(dir, file)); err != nil {
				return errcode.Wrap(errcode.IO, err, "stage tools/%s/%s", name, file)
			}
		}
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
	if err := os.WriteFile(filepath.Join(c.SessionDir, "task.md"), []byte(task), 0o600); err != nil {
		return errcode.Wrap(errcode.IO, err, "write task.md")
	}
	if err := s.setup(ctx, c, in, cap, ts, ws); err != nil {
		return err
	}
	if s.run != nil {
		s.run.lock.write(cap.Manifest, ts.Artifacts)
	}
	st.Task = task
	return nil
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
	lock   lockWriter
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
