package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// launcherFailed is the launcher's exit status when it could not set up the
// sandbox; it then never execs the tool (fail closed). The parent tells it
// from the tool's own 125 by the marker on stderr.
const launcherFailed = 125

// launcherMarker starts every message the launcher writes.
const launcherMarker = "murmur-eval-launcher: "

// launchSpec is what the parent hands the launcher, as JSON in argv[2].
type launchSpec struct {
	Path     string        `json:"path"` // absolute path of the binary to exec
	Argv     []string      `json:"argv"`
	Env      []string      `json:"env"`
	Dir      string        `json:"dir"`
	Rlimits  []rlimit      `json:"rlimits"`
	Landlock *landlockSpec `json:"landlock,omitempty"`
	Seccomp  seccompSpec   `json:"seccomp"`
	// Control: descriptor 3 is the control socket (control_linux.go); the
	// launcher hands over Net's sockets and waits for the go-ahead.
	Control bool `json:"control,omitempty"`
	// Wait, with Control: after handing over its sockets the launcher
	// waits for the parent's go-ahead (the parent puts it in the call's
	// cgroup first). A proxied call without a cgroup does not wait: the
	// listeners' backlogs hold what the tool sends before the proxy runs.
	Wait bool `json:"wait,omitempty"`
	// Net, with Control, sets up the call's network namespace for the
	// egress proxy (netns_linux.go).
	Net *netSpec `json:"net,omitempty"`
}

type rlimit struct {
	Resource int    `json:"resource"`
	Max      uint64 `json:"max"`
}

// LauncherMain runs the launcher when args (os.Args) start with
// LauncherArg, and reports handled=false otherwise. main calls it first:
//
//	if handled, code := sandbox.LauncherMain(os.Args); handled { os.Exit(code) }
//
// The launcher, already inside the subprocess's namespaces, sets up a
// proxied call's network namespace and waits for the parent's go-ahead
// (when the spec says so), drops every capability, sets no_new_privs,
// the Landlock rule set and hard rlimits on its own thread, marks every
// descriptor above stderr close-on-exec, installs the seccomp filter and
// execs the tool. It returns only on failure.
func LauncherMain(args []string) (handled bool, exitCode int) {
	if len(args) < 2 || args[1] != LauncherArg {
		return false, 0
	}
	if len(args) != 3 {
		fmt.Fprintln(os.Stderr, launcherMarker+"usage: LAUNCHER "+LauncherArg+" SPEC_JSON")
		return true, launcherFailed
	}
	var spec launchSpec
	if err := json.Unmarshal([]byte(args[2]), &spec); err != nil {
		fmt.Fprintln(os.Stderr, launcherMarker+"bad spec: "+err.Error())
		return true, launcherFailed
	}
	err := launch(spec)
	fmt.Fprintln(os.Stderr, launcherMarker+err.Error())
	if errors.Is(err, fs.ErrNotExist) {
		return true, 127
	}
	return true, launcherFailed
}

// launch applies spec and execs; it returns only an error.
func launch(spec launchSpec) error {
	// no_new_privs and Landlock belong to the thread; exec keeps the
	// calling thread's, so everything happens on this one.
	runtime.LockOSThread()
	if err := os.Chdir(spec.Dir); err != nil {
		return err
	}
	if spec.Control {
		var fds []int
		if spec.Net != nil {
			var err error
			if fds, err = setupNetns(*spec.Net); err != nil {
				return err
			}
		}
		if err := launcherHandshake(fds, spec.Wait); err != nil {
			return err
		}
	}
	// Whatever the launcher held for the namespace set-up (ambient
	// CAP_NET_ADMIN and CAP_NET_BIND_SERVICE in the call's user
	// namespace) is gone before anything of the tool's runs.
	if err := dropCapabilities(); err != nil {
		return err
	}
	if err := noNewPrivs(); err != nil {
		return err
	}
	if spec.Landlock != nil {
		if err := restrictThread(*spec.Landlock); err != nil {
			return err
		}
	}
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return fmt.Errorf("close inherited descriptors: %w", err)
	}
	filter, err := seccompProgram(spec.Seccomp)
	if err != nil {
		return err
	}
	// rlimits last: RLIMIT_NPROC and RLIMIT_AS would stop the Go runtime
	// itself from starting threads or mapping memory before the exec.
	for _, r := range spec.Rlimits {
		lim := syscall.Rlimit{Cur: r.Max, Max: r.Max}
		var cur syscall.Rlimit
		if syscall.Getrlimit(r.Resource, &cur) == nil && cur.Max < r.Max {
			lim = syscall.Rlimit{Cur: cur.Max, Max: cur.Max} // clamp to the inherited hard limit
		}
		if err := syscall.Setrlimit(r.Resource, &lim); err != nil {
			return fmt.Errorf("setrlimit(%d): %w", r.Resource, err)
		}
	}
	// The filter last: nothing the launcher itself does is filtered but
	// the execve, which the filter allows.
	if err := loadSeccomp(filter); err != nil {
		return err
	}
	err = syscall.Exec(spec.Path, spec.Argv, spec.Env)
	return fmt.Errorf("exec %s: %w", spec.Path, err)
}
