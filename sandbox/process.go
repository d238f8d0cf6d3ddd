package sandbox

import (
	"io"
	"os"
	"syscall"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/sandbox/cgroup"
	"github.com/murmur-nexus/murmur-eval/sandbox/egress"
)

// SpawnerOptions are a run's settings for every subprocess it starts.
type SpawnerOptions struct {
	// RunDir is the run folder: the launcher's copy goes to
	// RunDir/.launcher, so a killed run leaves nothing in /tmp. It must be
	// reachable by the subprocess user (see docs/sandbox.md); "" means the
	// system's temporary folder (tests).
	RunDir string
	// The capsule's grants, applied to a Proc with CapsuleGrants:
	// ShellAllow are capabilities.shell.allow's binary names, resolved on
	// the Proc's PATH (every match) and executable with their closures;
	// InterpreterRuntime are capabilities.shell.interpreter_runtime's
	// folders; UnixSockets is capabilities.network.unix_sockets.
	ShellAllow         []string
	InterpreterRuntime []capsule.InterpreterGrant
	UnixSockets        bool
	// Egress, when set, is the run's subprocess egress proxy: a call whose
	// Proc is not Isolate gets its own network namespace served by it
	// (docs/sandbox.md, "Network"). Nil leaves such calls on the host's
	// network (W-SEC-003).
	Egress *egress.Policy
	// Cgroups, when set, is the run's cgroup: every call gets a group of
	// its own below it with the Proc's cgroup_* limits. The Spawner owns
	// it and removes it on Close. Nil: no aggregate bound (W-SEC-010).
	Cgroups *cgroup.Run
}

// launcherDirName is the launcher's folder in the run folder.
const launcherDirName = ".launcher"

// linkOrCopyExec places an executable copy of src at dst.
func linkOrCopyExec(src, dst string) error {
	if os.Link(src, dst) == nil {
		if st, err := os.Stat(dst); err == nil && st.Mode().Perm()&0o005 == 0o005 {
			return nil
		}
		_ = os.Remove(dst)
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// A call's network (Spawner.EgressMode), in effective_grants'
// subprocess_egress words.
const (
	EgressNone          = "none"          // its own namespace, no way out
	EgressProxy         = "proxy"         // its own namespace, served by the egress proxy
	EgressUnconstrained = "unconstrained" // the host's network (W-SEC-003)
)

// Proc is one subprocess to run.
type Proc struct {
	Path string   // absolute path of the binary
	Argv []string // argv[0] included
	Env  []string // the whole environment
	Dir  string   // working directory: the session dir
	// SessionDir is the folder Landlock leaves writable. Path and
	// ExecFiles (a native tool's binary, a check's command) are executable,
	// each with its closure (ELF interpreter, libraries, a script's
	// interpreter); nothing else is unless WorkdirExec or CapsuleGrants.
	SessionDir string
	// Layer, when set, is the writable upper layer of the overlay mounted
	// at SessionDir (a harness-private folder no tool reaches): the
	// workdir guard measures it, what the case added, instead of the
	// whole session, and only its folders are handed over to the tool
	// user (sessionfs.ChownLayerDirs).
	Layer       string
	WorkdirExec bool
	ExecFiles   []string
	// CapsuleGrants applies the Spawner's capsule grants (SpawnerOptions):
	// set for shell and native tools, not for a dataset's check.
	CapsuleGrants bool
	// ExecSystemDirs makes the system folders executable as a whole, the
	// rule before murmur's per-file closure: for a dataset's check, whose
	// command (a test runner, make) may start any system tool. Never set
	// for a capsule's tools.
	ExecSystemDirs bool
	Stdin          []byte
	Resources      capsule.Resources
	// Isolate gives the subprocess its own network namespace: no route out.
	Isolate bool
	// Deadline bounds the wall-clock time; 0 means none.
	Deadline time.Duration
	// MaxOutput caps each stream kept in memory. When either stream is
	// cut, the full output (up to maxLogBytes a stream) goes to LogPath,
	// after LogHeader and an "Exit code: N" line.
	MaxOutput int
	LogPath   string
	LogHeader string
	// Output, when set, receives stdout and stderr both, through one pipe
	// (interleaved as the subprocess wrote them), instead of the capture
	// above: ProcResult.Stdout and Stderr stay empty and LogPath is unused.
	// Run calls its Write from one goroutine.
	Output io.Writer
}

// ProcResult is what a finished subprocess left.
type ProcResult struct {
	Stdout, Stderr []byte // the first MaxOutput bytes of each
	Truncated      bool   // a stream exceeded MaxOutput; the full output is at LogPath
	ExitCode       int    // status, or 128+signal
	Signal         syscall.Signal
	// ResourceLimit is the capabilities.resources limit that stopped it:
	// cpu_seconds or max_file_size_bytes when that limit's signal killed
	// it, cgroup_memory_bytes when its cgroup's OOM killer did,
	// cgroup_pids_max when its cgroup refused a fork.
	ResourceLimit string
	// Denied are the connections and lookups the egress proxy refused.
	Denied   []egress.Denial
	Duration time.Duration
}
