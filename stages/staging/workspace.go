package staging

import (
	"context"
	"os"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/datasets/commands"
	"github.com/murmur-nexus/murmur-eval/datasets/workspace"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
)

// Options are a run's settings for tool files, workspaces and setup
// commands; the zero value refuses a case that names a workspace or a
// setup command.
type Options struct {
	// Workspaces reads each workspace of the run once (in the run folder).
	Workspaces *workspace.Set
	// Clone forces a clone mechanism (workspace.CloneEnv); "" is auto.
	Clone workspace.Mechanism
	// Commands runs setup commands (shared with the Report stage's checks).
	Commands *commands.Launcher
	// PATH is the setup command's PATH ("" for scoring.DefaultPATH).
	PATH string
	// StagedDir is the run-level folder the tools' files are written to
	// once, for every session to link; "" writes them into each session.
	StagedDir string
	// WorkdirMaxFiles is --workdir-max-files, the run's bound on the
	// entries a case's session may hold (0: none); see Staged.
	WorkdirMaxFiles uint64
}

// NewWith returns a Stage for one run with workspaces and setup commands.
func NewWith(o Options) Stage { return Stage{run: &runState{}, opts: o} }

// populate clones the case's workspace into its fresh session folder (or
// mounts it there, workspace.Overlay), owned by the tool user so that its
// shell tools can rewrite the files.
func (s Stage) populate(ctx context.Context, c *pipeline.Case, in datasets.Case, ts *verify.Toolset) (*Workspace, error) {
	if in.Workspace == "" {
		return nil, nil
	}
	if s.opts.Workspaces == nil {
		return nil, errcode.New(errcode.Internal, "stage: case %q names a workspace, but the run has no workspace set", in.ID)
	}
	base, err := s.opts.Workspaces.Base(ctx, in.Workspace, in.WorkspaceKind)
	if err != nil {
		return nil, err
	}
	uid := -1
	if os.Getuid() == 0 && ts.Host.UserNS {
		uid = sandbox.ToolUID()
	}
	res, err := s.opts.Workspaces.Clone(ctx, base, c.SessionDir, workspace.CloneOptions{Mechanism: s.opts.Clone, UID: uid, GID: uid})
	if err != nil {
		return nil, err
	}
	return &Workspace{Base: base, Clone: res, set: s.opts.Workspaces, dir: c.SessionDir}, nil
}

// UpperDir is the case's overlay upper layer (workspace.CloneResult.
// UpperDir): what the workdir guard measures and the only folders handed
// over to the tool user before each subprocess. "" without an overlay.
func (w *Workspace) UpperDir() string {
	if w == nil {
		return ""
	}
	return w.Clone.UpperDir()
}

// WorkdirMaxBytes is the workdir guard's limit for the case given the
// manifest's workdir_max_bytes, which counts what the case adds. Under an
// overlay the guard measures only the upper layer, so it is limit itself;
// a copied or reflinked workspace is measured whole, so the limit is
// raised by the base's size. 0 (no limit) stays 0.
func (w *Workspace) WorkdirMaxBytes(limit uint64) uint64 {
	if w == nil || w.Base == nil || limit == 0 || w.UpperDir() != "" {
		return limit
	}
	return addSat(limit, w.Base.Bytes)
}

// WorkdirMaxFiles is the guard's file bound for the case given the run's
// (--workdir-max-files), which counts what the case creates: under an
// overlay the guard counts the upper layer, so it is limit itself; a
// copied or reflinked workspace is counted whole, so the bound is raised by
// the base's entries. 0 (no bound) stays 0.
func (w *Workspace) WorkdirMaxFiles(limit uint64) uint64 {
	if w == nil || w.Base == nil || limit == 0 || w.UpperDir() != "" {
		return limit
	}
	return addSat(limit, w.Base.Entries)
}

// Diff writes out/workspace.diff, what the case changed against the base
// (workspace.Base.Diff, through sessionfs: the session is hostile by
// then), and returns its size before any cut.
func (w *Workspace) Diff(ctx context.Context) (int64, error) {
	d, err := w.Base.Diff(ctx, w.dir, w.Clone, 0)
	if err != nil {
		return 0, err
	}
	return d.Bytes, nil
}

// Release ends the case's use of its workspace once the Report stage has
// diffed and scored it: an overlay is unmounted and the session folder
// holds what the case wrote (workspace.Set.Release). It does nothing for
// a copied workspace.
func (w *Workspace) Release() error {
	if w == nil || w.set == nil {
		return nil
	}
	return w.set.Release(w.dir, w.Clone)
}

// Close releases the case's workspace (pipeline.Closer: the executor
// calls it after the case's last stage, so Report diffs and checks the
// final state first). A failure keeps its own code, or is E-IO-003.
func (s *Staged) Close() error {
	if s == nil || s.Workspace == nil {
		return nil
	}
	if err := s.Workspace.Release(); err != nil {
		return errcode.WrapKeep(errcode.IO, err, "release the workspace")
	}
	return nil
}
