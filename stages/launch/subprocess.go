package launch

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/stages/staging"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// maxShellOutput is murmur's cap on each of a shell call's streams.
const maxShellOutput = 16 << 10

// shell runs a capabilities.shell.allow binary with murmur's semantics
// (murmur-session.md §1.5): the reply is passed whatever the exit code, its
// data the command, exit code and both streams, and a shell event goes to
// the trace. A bad input or a sandbox failure is an error reply with no
// shell event.
func (t *toolbox) shell(ctx context.Context, bin string, input json.RawMessage) (session.ToolReply, error) {
	var in struct {
		Command *string `json:"command"`
	}
	parseFailed := session.ToolReply{Text: "shell command parsing failed", IsError: true}
	if json.Unmarshal(input, &in) != nil || in.Command == nil || strings.TrimSpace(*in.Command) == "" {
		return parseFailed, nil
	}
	command := strings.TrimSpace(*in.Command)
	argv, err := sandbox.ShellArgv(bin, command)
	if err != nil {
		return parseFailed, nil
	}
	path := lookPath(bin, envValue(t.policy.ShellEnv, "PATH"))
	if path == "" {
		return session.ToolReply{Text: "binary '" + bin + "' not found on PATH", IsError: true}, nil
	}
	logRel := "logs/shell-" + strconv.FormatInt(time.Now().UnixMilli(), 10) + ".log"
	res, err := t.run(ctx, sandbox.Proc{Path: path, Argv: argv, Env: t.policy.ShellEnv, CapsuleGrants: true,
		LogPath: filepath.Join(t.policy.Root, filepath.FromSlash(logRel)), LogHeader: "$ " + command + "\n"})
	if err != nil {
		return t.failed(ctx, err)
	}
	data := fmt.Sprintf("$ %s\nExit code: %d\nStdout:\n%s\nStderr:\n%s", command, res.ExitCode, lossy(res.Stdout), lossy(res.Stderr))
	if res.Truncated {
		data += "\n\nOutput truncated. Full output written to " + logRel
	}
	return session.ToolReply{Text: data, Shell: &trace.Shell{
		Binary: path, Command: command, ExitCode: int32(res.ExitCode),
		StdoutBytes: len(res.Stdout), StderrBytes: len(res.Stderr),
		DurationMS: res.Duration.Milliseconds(), ResourceLimit: res.ResourceLimit,
	}, ShellStdout: string(res.Stdout), ShellStderr: string(res.Stderr)}, nil
}

// native runs tools/<name>/<name> with murmur's native-tool protocol: the
// input as {"data", "log_path"} on stdin, the result parsed from stdout.
func (t *toolbox) native(ctx context.Context, name string, input json.RawMessage) (session.ToolReply, error) {
	bin := filepath.Join(t.policy.Root, "tools", name, name)
	stdin, _ := json.Marshal(toolInput{Data: string(input)})
	res, err := t.run(ctx, sandbox.Proc{Path: bin, Argv: []string{name}, Env: t.policy.NativeEnv,
		CapsuleGrants: true, Stdin: stdin})
	if err != nil {
		return t.failed(ctx, err)
	}
	return resultReply(sandbox.ParseNativeToolResult(name, &sandbox.Output{Stdout: res.Stdout, Stderr: res.Stderr, ExitCode: uint32(res.ExitCode)})), nil
}

// run fills in what every subprocess of the case shares, and makes its
// HOME, the session's .capsule-home, first: as murmur does before each
// shell or native call (shell.rs, synthetic_home_dir), so a session in
// which no subprocess runs has none, and one whose tool removed it gets it
// back. A name there that is not a folder fails the call, as in murmur.
func (t *toolbox) run(ctx context.Context, p sandbox.Proc) (*sandbox.ProcResult, error) {
	if t.set.Spawner == nil {
		return nil, errcode.New(errcode.Internal, "no subprocess launcher for '%s'", p.Argv[0])
	}
	t.reach() // every launch marks first, though Call already has (exposure.go)
	if err := makeHome(t.policy.Root); err != nil {
		return nil, err
	}
	p.Dir, p.SessionDir, p.Layer = t.policy.Root, t.policy.Root, t.policy.Layer
	p.WorkdirExec, p.Resources, p.Isolate = t.policy.WorkdirExec, t.policy.Resources, t.policy.Isolate
	p.Deadline, p.MaxOutput = t.policy.Deadline, maxShellOutput
	res, err := t.set.Spawner.Run(ctx, p)
	if res != nil {
		t.denied.AddProxied(p.Argv[0], res.Denied)
	}
	return res, err
}

// failed turns a subprocess error into murmur's error reply, except those
// that end the case: its context, and the workdir guard (E-RUN-013).
func (t *toolbox) failed(ctx context.Context, err error) (session.ToolReply, error) {
	if ctx.Err() != nil || errcode.Is(err, errcode.RunWorkdirSize) {
		return session.ToolReply{}, err
	}
	return session.ToolReply{Text: err.Error(), IsError: true, Code: errcode.Code(err)}, nil
}

// lookPath finds bin in the PATH the subprocess gets, as murmur resolves
// shell binaries: the first executable regular file.
func lookPath(bin, path string) string {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, bin)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}

func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

func lossy(b []byte) string { return strings.ToValidUTF8(string(b), "\uFFFD") }

// makeHome creates the subprocesses' HOME in the session folder dir,
// through sessionfs (the folder is the tools').
func makeHome(dir string) error {
	r, err := sessionfs.Open(dir)
	if err != nil {
		return errcode.WrapKeep(errcode.IO, err, "create the subprocesses' HOME")
	}
	defer r.Close()
	if err := r.MkdirAll(staging.CapsuleHome, 0o755); err != nil {
		return errcode.WrapKeep(errcode.IO, err, "failed to create synthetic home directory %s", filepath.Join(dir, staging.CapsuleHome))
	}
	return nil
}
