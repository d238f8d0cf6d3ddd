//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/internal/tooltest"
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
	python := tooltest.RequirePython(t, "ctypes", "fcntl", "socket", "resource")
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
