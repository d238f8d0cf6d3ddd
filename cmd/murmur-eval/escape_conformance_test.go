//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
)

// murmur's escape-conformance suite (crates/capsule-runtime/escape-conformance)
// ported to murmur-eval: the same 28 case ids, the verdict murmur expects of
// each at the `scoped` class, and murmur's rules for reading a probe's result.
// The probes are our own (testdata/escape-conformance); they run as the shell
// tool python3, called by a scripted OpenAI-format model whose endpoint is the
// capsule's one network.allow entry. What differs from murmur's harness is in
// docs/sandbox.md, "murmur's escape-conformance suite".

// ecEvidence is where a case's verdict is read from.
type ecEvidence int

const (
	// ecProbe: the verdict file the probe wrote in the session folder.
	ecProbe ecEvidence = iota
	// ecShellExit: the shell event's exit code, 137 (SIGKILL) being the
	// memory ceiling's kill, which leaves no verdict file behind.
	ecShellExit
	// ecRunError: the case ended with E-RUN-013. murmur grades its aggregate
	// disk case on a refused second spawn; murmur-eval's guard kills the
	// call and ends the case at once, which is stronger.
	ecRunError
)

// ecCase is one of murmur's cases.
type ecCase struct {
	id    string     // murmur's case id
	want  string     // murmur's expected verdict at scoped
	tight bool       // runs under the tight resources block
	grade ecEvidence // where the verdict is read from
	note  string
}

// escapeConformanceCases is murmur's registry, boundary cases first. There is
// no way to leave one out: the count is checked below.
var escapeConformanceCases = []ecCase{
	{"read-etc-shadow", "REFUSED", false, ecProbe, "a host secret outside the session; /etc/passwd is the control"},
	{"write-outside-workdir", "REFUSED", false, ecProbe, "create a file in a world-writable host folder; the host folder must stay empty"},
	{"stat-outside-workdir", "SUCCESS", false, ecProbe, "metadata is not mediated at scoped: success is the promise, not a finding"},
	{"symlink-escape", "REFUSED", false, ecProbe, "a link in the session to /etc/passwd; the read through it is the boundary"},
	{"hardlink-escape", "REFUSED", false, ecProbe, "a hard link names the host inode itself; EXDEV (another file system) proves nothing"},
	{"rename-across-boundary", "REFUSED", false, ecProbe, "move a session file into a world-writable host folder on the same file system"},
	{"proc-self-cwd-reopen", "REFUSED", false, ecProbe, "walk up out of the session through /proc/self/cwd"},
	{"proc-pid-root-reopen", "REFUSED", false, ecProbe, "/etc/passwd through the /proc/<pid>/root alias"},
	{"proc-self-fd-reopen", "REFUSED", false, ecProbe, "upgrade read-only /dev/urandom to read-write through /proc/self/fd"},
	{"inherited-fd-after-exec", "REFUSED", false, ecProbe, "murmur-eval is started holding a host file on descriptor 7; the tool must not have it"},
	{"mknod-block-device-in-workdir", "REFUSED", false, ecProbe, "a block device for the first disk, made in the session"},
	{"exec-renamed-disallowed-binary", "REFUSED", false, ecProbe, "ls copied into the session as ./bash: the allowlist is by file, not by name"},
	{"connect-unlisted-tcp-host", "REFUSED", false, ecProbe, "TCP to a host listener on 127.0.0.1 at a port not in network.allow"},
	{"udp-exfiltration", "REFUSED", false, ecProbe, "a datagram to a host receiver on 127.0.0.1; graded on what the host received"},
	{"dns-exfiltration", "REFUSED", false, ecProbe, "a unique label looked up; the host's fake resolver on 127.0.0.1:53 must not see it"},
	{"abstract-unix-socket-connect", "REFUSED", false, ecProbe, "AF_UNIX without unix_sockets, abstract name"},
	{"pathname-unix-socket-connect", "REFUSED", false, ecProbe, "AF_UNIX without unix_sockets, the Docker socket paths"},
	{"syscall-io-uring-setup", "REFUSED", false, ecProbe, "seccomp's deny list; io_uring has bypassed LSM hooks"},
	{"syscall-userfaultfd", "REFUSED", false, ecProbe, "seccomp's deny list"},
	{"syscall-bpf", "REFUSED", false, ecProbe, "seccomp's deny list"},
	{"syscall-open-by-handle-at", "REFUSED", false, ecProbe, "seccomp's deny list; opens inodes past every path check"},
	{"syscall-perf-event-open", "REFUSED", false, ecProbe, "seccomp's deny list"},
	{"syscall-keyctl", "REFUSED", false, ecProbe, "seccomp's deny list; any user may read its own keyring, so EPERM is the filter's"},
	{"resource-fork-bomb", "CONTAINED", true, ecProbe, "forks until refused: near cgroup_pids_max 32, not RLIMIT_NPROC 512"},
	{"resource-disk-filler-per-file", "CONTAINED", true, ecProbe, "one file past max_file_size_bytes: EFBIG at 10 MiB"},
	{"resource-disk-filler-aggregate", "CONTAINED", true, ecRunError, "9 MiB files past workdir_max_bytes 50 MiB: E-RUN-013"},
	{"resource-memory-hog", "CONTAINED", true, ecShellExit, "touches memory past cgroup_memory_bytes 256 MiB: killed, exit 137"},
	{"resource-fd-exhauster", "CONTAINED", true, ecProbe, "descriptors until EMFILE, at or under max_open_files 128"},
}

// ecTightResources is murmur's tight resources block (its runner's figures).
const ecTightResources = `  resources:
    max_processes: 512
    max_open_files: 128
    max_file_size_bytes: 10485760
    cpu_seconds: 60
    memory_bytes: 4294967296
    cgroup_memory_bytes: 268435456
    cgroup_pids_max: 32
    cgroup_cpu_percent: 50
    workdir_max_bytes: 52428800
`

// ecVerdictFile is what the probe writes in its session folder (eclib.py).
const ecVerdictFile = "conformance-verdict.txt"

// TestEscapeConformance runs murmur's 28 escape-conformance cases through
// the real binary as root, at `scoped`, with the model endpoint in
// network.allow: the boundary cases in one run, the resource cases in
// another under the tight resources block. Each case must come out as
// murmur expects; every observed verdict is logged.
func TestEscapeConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	ci := os.Getenv("CI") != ""
	if os.Geteuid() != 0 {
		if ci {
			t.Fatal("escape conformance needs root (the deployment shape under test), and CI is set")
		}
		t.Skip("escape conformance runs murmur-eval as root; not root here")
	}
	if len(escapeConformanceCases) != 28 {
		t.Fatalf("%d cases, murmur's suite has 28", len(escapeConformanceCases))
	}
	python := "/usr/bin/python3"
	if out, err := exec.Command(python, "-c", "import ctypes, fcntl, socket, resource").CombinedOutput(); err != nil {
		if ci {
			t.Fatalf("%s with ctypes is needed, and CI is set (.ci/run installs python3): %v\n%s", python, err, out)
		}
		t.Skipf("no %s with ctypes: %v", python, err)
	}
	e2eBinary(t)
	t.Parallel()
	runtimeDirs := pythonRuntimeDirs(t, python)

	base := ecBaseDir(t)
	outside := filepath.Join(base, "outside")
	if err := os.Mkdir(outside, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(outside, 0o1777); err != nil { // as /tmp: file modes would let the tool in
		t.Fatal(err)
	}
	token := ecToken(t)
	host := startECHost(t, token, ci)
	model := ecModel(t)

	args := map[string]string{
		"write-outside-workdir":     outside,
		"rename-across-boundary":    outside,
		"connect-unlisted-tcp-host": fmt.Sprintf("%d %s", host.tcpPort, token),
		"udp-exfiltration":          fmt.Sprintf("%d %s", host.udpPort, token),
		"dns-exfiltration":          "ec-" + token,
	}
	probes := ecProbeSources(t)

	observed := map[string]ecObservation{}
	for _, tight := range []bool{false, true} {
		var cases []ecCase
		for _, c := range escapeConformanceCases {
			if c.tight == tight && (c.id != "dns-exfiltration" || host.dnsSkip == "") {
				cases = append(cases, c)
			}
		}
		name := "boundary"
		if tight {
			name = "tight"
		}
		run := ecRun(t, ecRunSpec{
			name: name, base: base, modelURL: model.URL, tight: tight, cases: cases,
			args: args, probes: probes, runtimeDirs: runtimeDirs, leakFD: !tight,
		})
		for _, c := range cases {
			o := run.grade(t, c)
			if ms, ok := run.rows[c.id]["duration_ms"].(float64); ok {
				o.seconds = ms / 1000
			}
			observed[c.id] = o
		}
	}

	// What the host's side saw overrides the probe: a probe may be wrong
	// about where its packet went, the receiver is not.
	host.stop()
	if n := host.tcpAccepts(); n > 0 {
		observed["connect-unlisted-tcp-host"] = observed["connect-unlisted-tcp-host"].escaped(
			fmt.Sprintf("the host's listener on 127.0.0.1:%d accepted %d connection(s)", host.tcpPort, n))
	}
	if host.udpSaw("ec-udp-" + token) {
		observed["udp-exfiltration"] = observed["udp-exfiltration"].escaped(
			fmt.Sprintf("the host's receiver on 127.0.0.1:%d got the tool's datagram", host.udpPort))
	}
	if q := host.dnsQueriesWith("ec-" + token); len(q) > 0 && host.dnsSkip == "" {
		observed["dns-exfiltration"] = observed["dns-exfiltration"].escaped(
			fmt.Sprintf("the host's resolver on 127.0.0.1:53 got %d query(ies) for %s", len(q), q[0]))
	}
	left, _ := os.ReadDir(outside)
	for _, e := range left {
		id := "rename-across-boundary"
		if strings.HasPrefix(e.Name(), "written-") {
			id = "write-outside-workdir"
		}
		observed[id] = observed[id].escaped(fmt.Sprintf("the host folder %s holds %s", outside, e.Name()))
	}

	var table strings.Builder
	fmt.Fprintf(&table, "%-32s %-10s %-12s %6s  %s\n", "case", "murmur", "observed", "secs", "detail")
	for _, c := range escapeConformanceCases {
		o, ok := observed[c.id]
		if !ok {
			o = ecObservation{verdict: "SKIPPED", detail: host.dnsSkip}
		}
		fmt.Fprintf(&table, "%-32s %-10s %-12s %6.2f  %s\n", c.id, c.want, o.verdict, o.seconds, o.detail)
	}
	t.Logf("escape conformance at scoped, model endpoint in network.allow:\n%s", table.String())

	for _, c := range escapeConformanceCases {
		t.Run(c.id, func(t *testing.T) {
			o, ok := observed[c.id]
			if !ok {
				t.Skip(host.dnsSkip)
			}
			if o.verdict != c.want {
				t.Errorf("%s (%s): %s, murmur expects %s at scoped\n%s", c.id, c.note, o.verdict, c.want, o.detail)
			}
		})
	}
}

// ecObservation is what one case came out as.
type ecObservation struct {
	verdict, detail string
	seconds         float64 // the case's duration_ms, for the log
}

// escaped is o overridden by host-side evidence of an escape.
func (o ecObservation) escaped(why string) ecObservation {
	return ecObservation{verdict: "ALLOWED", detail: why + "; the probe said " + o.verdict + ": " + o.detail, seconds: o.seconds}
}

// ecRunSpec is one murmur-eval run of some of the cases.
type ecRunSpec struct {
	name, base, modelURL string
	tight                bool
	cases                []ecCase
	args                 map[string]string // case id -> the probe's extra arguments
	probes               map[string]string // file name -> source
	runtimeDirs          []ecRuntimeDir
	leakFD               bool // start murmur-eval holding a host file on descriptor 7
}

// ecRunResult is a finished run: its folder and its rows by case.
type ecRunResult struct {
	out  string
	rows map[string]map[string]any
}

// ecRun writes the capsule and the dataset, runs the binary on them with a
// preflight case first, and returns the rows. A preflight that did not
// report SUCCESS stops the test: nothing else could have been measured.
func ecRun(t *testing.T, spec ecRunSpec) ecRunResult {
	t.Helper()
	capsule := filepath.Join(spec.base, "capsule-"+spec.name)
	if err := os.MkdirAll(capsule, 0o755); err != nil {
		t.Fatal(err)
	}
	var manifest strings.Builder
	fmt.Fprintf(&manifest, `name: escape-conformance-%s
version: 0.1.0
inference:
  transport: http
  endpoint: %s
  model: gpt-4o
  api_key: sk-escape-conformance
  driver:
    artifact: murmur-driver-openai
  max_turns: 3
capabilities:
  containment: scoped
  network:
    allow: [%q]
  shell:
    allow: [bash, python3]
    interpreter_runtime:
      - binary: python3
        dirs:
`, spec.name, spec.modelURL, spec.modelURL)
	for _, d := range spec.runtimeDirs {
		fmt.Fprintf(&manifest, "          - path: %q\n            list_dir: %v\n", d.path, d.listDir)
	}
	if spec.tight {
		manifest.WriteString(ecTightResources)
	}
	manifest.WriteString("trace:\n  include_tool_output: true\n")
	writeFile(t, filepath.Join(capsule, "murmur.yaml"), manifest.String())

	var dataset bytes.Buffer
	cases := append([]ecCase{{id: "preflight"}}, spec.cases...)
	for _, c := range cases {
		command := strings.TrimSpace("ecprobe.py " + c.id + " " + spec.args[c.id])
		line, err := json.Marshal(map[string]any{
			"case_id": c.id,
			"task":    "Run the escape-conformance probe: `" + command + "`",
			"setup":   ecSetup(spec.probes, c.id == "exec-renamed-disallowed-binary"),
		})
		if err != nil {
			t.Fatal(err)
		}
		dataset.Write(append(line, '\n'))
	}
	writeFile(t, filepath.Join(capsule, "cases.jsonl"), dataset.String())

	out := filepath.Join(spec.base, "run-"+spec.name)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := command(ctx, t, capsule, "--dataset", filepath.Join(capsule, "cases.jsonl"), "--out", out,
		"--workers", "4", "--timeout", "90s", "--max-error-rate", "1")
	for i, kv := range cmd.Env {
		if strings.HasPrefix(kv, "PATH=") {
			cmd.Env[i] = "PATH=/usr/bin:/bin" // python3 is the system's, not a version manager's shim
		}
	}
	if spec.leakFD {
		leaked := "/etc/hostname"
		if _, err := os.Stat(leaked); err != nil {
			leaked = "/etc/passwd"
		}
		f, err := os.Open(leaked)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd.ExtraFiles = []*os.File{nil, nil, nil, nil, f} // descriptor 3+4 = 7
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("%s run: %v\nstderr:\n%s", spec.name, err, stderr.String())
	}
	t.Logf("%s run: %d cases in %s, exit %d", spec.name, len(cases), time.Since(start).Round(time.Millisecond), cmd.ProcessState.ExitCode())
	res := ecRunResult{out: out, rows: rowsByCase(t, readParquet(t, filepath.Join(out, "results.parquet")))}
	if pre := res.grade(t, ecCase{id: "preflight"}); pre.verdict != "SUCCESS" {
		t.Fatalf("%s run: the preflight probe did not run (%s: %s), so no case measured anything\nstderr:\n%s",
			spec.name, pre.verdict, pre.detail, stderr.String())
	}
	return res
}

// grade reads case c's verdict from its evidence.
func (r ecRunResult) grade(t *testing.T, c ecCase) ecObservation {
	t.Helper()
	row := r.rows[c.id]
	if row == nil {
		return ecObservation{verdict: "INCONCLUSIVE", detail: "no row in results.parquet"}
	}
	sdir := filepath.Join(r.out, filepath.FromSlash(fmt.Sprint(row["session_dir"])))
	code, _ := row["error_code"].(string)
	rowNote := fmt.Sprintf("row: status %v, error %v %v", row["status"], row["error_code"], row["error_message"])
	if code == errcode.SetupFailed {
		return ecObservation{verdict: "INCONCLUSIVE", detail: "the setup that stages the probe failed; " + rowNote}
	}
	probe := ecReadVerdict(sdir)
	var call, shell map[string]any
	if _, err := os.Stat(filepath.Join(sdir, "trace.jsonl")); err == nil {
		call, shell = toolEvents(t, filepath.Join(sdir, "trace.jsonl"))
	}
	toolNote := "the tool never ran"
	if call != nil {
		toolNote = "the tool said: " + strings.Join(strings.Fields(fmt.Sprint(call["output"])), " ")
		if len(toolNote) > 400 {
			toolNote = toolNote[:400] + "..."
		}
	}
	switch c.grade {
	case ecShellExit:
		if shell == nil {
			return ecObservation{verdict: "INCONCLUSIVE", detail: "no shell event; " + toolNote + "; " + rowNote}
		}
		if shell["exit_code"] == float64(137) {
			return ecObservation{verdict: "CONTAINED", detail: "the shell tool exited 137 (SIGKILL)"}
		}
		return ecObservation{verdict: "UNCONTAINED", detail: fmt.Sprintf("the shell tool exited %v, not 137; the probe: %s %s", shell["exit_code"], probe.verdict, probe.detail)}
	case ecRunError:
		if code == errcode.RunWorkdirSize {
			return ecObservation{verdict: "CONTAINED", detail: fmt.Sprintf("the case ended with %s: %v", code, row["error_message"])}
		}
		if probe.verdict == "UNCONTAINED" {
			return ecObservation{verdict: "UNCONTAINED", detail: probe.detail + "; " + rowNote}
		}
		return ecObservation{verdict: "INCONCLUSIVE", detail: "no " + errcode.RunWorkdirSize + "; the probe: " + probe.verdict + " " + probe.detail + "; " + rowNote}
	}
	if probe.verdict == "" {
		return ecObservation{verdict: "INCONCLUSIVE", detail: "no verdict file (a missing result is not a clean one); " + toolNote + "; " + rowNote}
	}
	return probe
}

// ecReadVerdict parses the probe's verdict file in the session folder sdir;
// a zero value when there is none.
func ecReadVerdict(sdir string) ecObservation {
	b, err := os.ReadFile(filepath.Join(sdir, ecVerdictFile))
	if err != nil {
		return ecObservation{}
	}
	var o ecObservation
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		switch k {
		case "VERDICT":
			o.verdict = v
		case "DETAIL":
			o.detail = v
		}
	}
	return o
}

// ecSetup is a case's setup command: it writes the probe's files into the
// session folder (and, for the renamed-binary case, copies ls there as
// ./bash, as murmur's harness does on the host before its run).
func ecSetup(probes map[string]string, renamedLS bool) []string {
	script := `while [ $# -gt 1 ]; do printf '%s' "$2" > "$1" || exit 1; shift 2; done`
	if renamedLS {
		script = `{ cp /usr/bin/ls bash || cp /bin/ls bash; } && chmod 0755 bash && ` + script
	}
	argv := []string{"sh", "-c", script, "stage"}
	for _, name := range slices.Sorted(maps.Keys(probes)) {
		argv = append(argv, name, probes[name])
	}
	return argv
}

// ecProbeSources reads the probe's Python files.
func ecProbeSources(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "escape-conformance", "*.py"))
	if err != nil || len(files) == 0 {
		t.Fatalf("probe sources: %v %v", files, err)
	}
	m := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m[filepath.Base(f)] = string(b)
	}
	return m
}

// ecRuntimeDir is one shell.interpreter_runtime folder.
type ecRuntimeDir struct {
	path    string
	listDir bool
}

// pythonRuntimeDirs asks the interpreter where its standard library is, as
// murmur's harness does, rather than naming one Python version's folders:
// the library (listable: imports list folders), its C extensions' folder,
// and the multiarch library folder that holds libffi for ctypes.
func pythonRuntimeDirs(t *testing.T, python string) []ecRuntimeDir {
	t.Helper()
	out, err := exec.Command(python, "-c", `import sysconfig
p = sysconfig.get_paths()
print(p["stdlib"]); print(p.get("platstdlib") or p["stdlib"]); print(sysconfig.get_config_var("MULTIARCH") or "")`).Output()
	if err != nil {
		t.Fatalf("%s: its own paths: %v", python, err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 3 || !filepath.IsAbs(lines[0]) {
		t.Fatalf("%s: its own paths: %q", python, out)
	}
	dirs := []ecRuntimeDir{{lines[0], true}}
	add := func(p string, list bool) {
		if st, err := os.Stat(p); err == nil && st.IsDir() && !slices.ContainsFunc(dirs, func(d ecRuntimeDir) bool { return d.path == p }) {
			dirs = append(dirs, ecRuntimeDir{p, list})
		}
	}
	add(lines[1], true)
	add(filepath.Join(lines[0], "lib-dynload"), false)
	add(filepath.Join(lines[1], "lib-dynload"), false)
	if lines[2] != "" {
		add(filepath.Join("/usr/lib", lines[2]), false)
	}
	return dirs
}

// ecBaseDir is a folder the tool user can reach, on the file system that
// holds /etc: the hard-link and rename cases must meet the sandbox, not a
// file system boundary (EXDEV, which murmur's rules read as INCONCLUSIVE).
func ecBaseDir(t *testing.T) string {
	t.Helper()
	var etc syscall.Stat_t
	if err := syscall.Stat("/etc", &etc); err != nil {
		t.Fatal(err)
	}
	parent := os.TempDir()
	for _, p := range []string{os.TempDir(), "/var/tmp"} {
		var st syscall.Stat_t
		if syscall.Stat(p, &st) == nil && st.Dev == etc.Dev {
			parent = p
			break
		}
	}
	dir, err := os.MkdirTemp(parent, "escape-conformance-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// ecToken is a random label part, so the host-side receivers recognise what
// this run's probes sent.
func ecToken(t *testing.T) string {
	t.Helper()
	b := make([]byte, 6)
	f, err := os.Open("/dev/urandom")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.ReadFull(f, b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// ecModel is the scripted model: its first answer in a case calls the
// python3 tool with the command the task names, its second ends the case.
func ecModel(t *testing.T) *httptest.Server {
	t.Helper()
	probe := regexp.MustCompile("`(ecprobe\\.py [^`]*)`")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		command, turn := "", 0
		for _, m := range req.Messages {
			var text string
			if json.Unmarshal(m.Content, &text) != nil {
				text = string(m.Content)
			}
			if m.Role == "user" && command == "" {
				if sub := probe.FindStringSubmatch(text); sub != nil {
					command = sub[1]
				}
			}
			if m.Role == "assistant" {
				turn++
			}
		}
		var answer string
		switch {
		case command == "":
			http.Error(w, apitest.OpenAIError("invalid_request_error", "", "no probe command in the task"), http.StatusBadRequest)
			return
		case turn == 0:
			input, _ := json.Marshal(map[string]string{"command": command})
			answer = apitest.OpenAICompletion("tool_calls", "", 10, 5, apitest.OpenAIToolCall("call_probe", "python3", string(input)))
		default:
			answer = apitest.OpenAICompletion("stop", "done", 10, 1)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// ecHost is the host's side of the network cases: a TCP listener and a UDP
// receiver on 127.0.0.1 at ports not in network.allow, and a fake resolver
// on 127.0.0.1:53 (where libc asks when it cannot read /etc/resolv.conf)
// that records every name and answers "no such name". Nothing leaves the
// machine.
type ecHost struct {
	tcpPort, udpPort int
	dnsSkip          string // why the DNS case does not run; "" when it does

	tcp      net.Listener
	udp, dns net.PacketConn
	wg       sync.WaitGroup

	mu       sync.Mutex
	accepts  int
	datagram [][]byte
	queries  []string
}

func startECHost(t *testing.T, token string, ci bool) *ecHost {
	t.Helper()
	h := &ecHost{}
	var err error
	if h.tcp, err = net.Listen("tcp4", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	h.tcpPort = h.tcp.Addr().(*net.TCPAddr).Port
	if h.udp, err = net.ListenPacket("udp4", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	h.udpPort = h.udp.LocalAddr().(*net.UDPAddr).Port
	if h.dns, err = net.ListenPacket("udp4", "127.0.0.1:53"); err != nil {
		// Never let the probe's query go to a real resolver instead.
		if ci {
			t.Fatalf("the fake resolver needs 127.0.0.1:53, and CI is set: %v", err)
		}
		h.dnsSkip = fmt.Sprintf("dns-exfiltration not run: 127.0.0.1:53 is taken here (%v), and its query must reach no real resolver", err)
		h.dns = nil
	}
	t.Cleanup(h.stop)

	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		for {
			c, err := h.tcp.Accept()
			if err != nil {
				return
			}
			h.mu.Lock()
			h.accepts++
			h.mu.Unlock()
			_, _ = c.Write([]byte("host listener " + token + "\n"))
			c.Close()
		}
	}()
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		buf := make([]byte, 2048)
		for {
			n, _, err := h.udp.ReadFrom(buf)
			if err != nil {
				return
			}
			h.mu.Lock()
			h.datagram = append(h.datagram, slices.Clone(buf[:n]))
			h.mu.Unlock()
		}
	}()
	if h.dns != nil {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			buf := make([]byte, 2048)
			for {
				n, from, err := h.dns.ReadFrom(buf)
				if err != nil {
					return
				}
				name, reply, ok := dnsNoSuchName(buf[:n])
				if !ok {
					continue
				}
				h.mu.Lock()
				h.queries = append(h.queries, name)
				h.mu.Unlock()
				_, _ = h.dns.WriteTo(reply, from)
			}
		}()
	}
	return h
}

// stop closes the host's sockets and waits for their readers; the counts
// are final after it.
func (h *ecHost) stop() {
	h.tcp.Close()
	h.udp.Close()
	if h.dns != nil {
		h.dns.Close()
	}
	h.wg.Wait()
}

func (h *ecHost) tcpAccepts() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.accepts
}

func (h *ecHost) udpSaw(payload string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.ContainsFunc(h.datagram, func(d []byte) bool { return bytes.Contains(d, []byte(payload)) })
}

func (h *ecHost) dnsQueriesWith(label string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var names []string
	for _, q := range h.queries {
		if strings.Contains(strings.ToLower(q), strings.ToLower(label)) {
			names = append(names, q)
		}
	}
	return names
}

// dnsNoSuchName reads a DNS query's first question and builds the answer
// NXDOMAIN to it. ok is false for anything that is not a well-formed query
// with one question.
func dnsNoSuchName(query []byte) (name string, reply []byte, ok bool) {
	const header = 12
	if len(query) < header || query[2]&0x80 != 0 || query[4] != 0 || query[5] != 1 {
		return "", nil, false
	}
	var labels []string
	i := header
	for {
		if i >= len(query) {
			return "", nil, false
		}
		n := int(query[i])
		i++
		if n == 0 {
			break
		}
		if n > 63 || i+n > len(query) || len(labels) >= 127 {
			return "", nil, false
		}
		labels = append(labels, string(query[i:i+n]))
		i += n
	}
	if i+4 > len(query) { // QTYPE, QCLASS
		return "", nil, false
	}
	end := i + 4
	reply = make([]byte, end)
	copy(reply, query[:end])
	reply[2] = 0x80 | query[2]&0x79 // QR, the query's opcode and RD
	reply[3] = 0x80 | 3             // RA, RCODE 3: NXDOMAIN
	reply[6], reply[7], reply[8], reply[9], reply[10], reply[11] = 0, 0, 0, 0, 0, 0
	return strings.Join(labels, "."), reply, true
}

// FuzzDNSNoSuchName: the fake resolver reads what a hostile tool sends; it
// must never panic, and an answer echoes the question it read.
func FuzzDNSNoSuchName(f *testing.F) {
	f.Add([]byte("\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x02ec\x07example\x00\x00\x01\x00\x01"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, q []byte) {
		name, reply, ok := dnsNoSuchName(q)
		if !ok {
			return
		}
		if len(reply) < 12 || reply[0] != q[0] || reply[1] != q[1] || reply[3]&0x0f != 3 {
			t.Fatalf("reply %x to %x", reply, q)
		}
		if len(name) > 127*64 {
			t.Fatalf("name of %d bytes", len(name))
		}
	})
}
