package report

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/datasets/commands"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/scoring"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// TestMain lets the test binary act as the check's launcher.
func TestMain(m *testing.M) {
	if handled, code := sandbox.LauncherMain(os.Args); handled {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// testResources are murmur's defaults for capabilities.resources.
func testResources() capsule.Resources {
	return capsule.Resources{MaxProcesses: 128, MaxOpenFiles: 1024, MaxFileSizeBytes: 1 << 30,
		CPUSeconds: 60, MemoryBytes: 2 << 30, WorkdirMaxBytes: 1 << 30}
}

// sandboxHost probes the host, skipping the test where checks cannot be
// sandboxed (their refusal is TestCheckRefusedWithoutNamespaces).
func sandboxHost(t testing.TB) sandbox.Host {
	t.Helper()
	h := sandbox.ProbeHost(context.Background())
	if !h.UserNS || !h.Landlock {
		t.Skipf("no user namespaces or Landlock here: %s %s", h.UserNSReason, h.LandlockReason)
	}
	return h
}

// openTempDir is a temporary folder the check's unprivileged user can reach
// (t.TempDir is private).
func openTempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "report-check-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// sandboxedCase is an ended case whose session folder is reachable by the
// check's user, with a toolset on host and murmur's default resources.
func sandboxedCase(t *testing.T, host sandbox.Host, expected string) *pipeline.Case {
	t.Helper()
	c := endedCase(t, trace.ExitOK, "42", expected)
	dir := filepath.Join(openTempDir(t), "session")
	if err := os.Rename(c.SessionDir, dir); err != nil {
		t.Fatal(err)
	}
	c.SessionDir = dir
	pipeline.Store(c, sandboxKey, &CheckSandbox{Host: commands.Host{Probe: host}, Resources: testResources()})
	return c
}

// sandboxKey is where a test case keeps its check sandbox (what the
// stage table reads from Verify's and Contain's results).
var sandboxKey = pipeline.NewKey[*CheckSandbox]("sandbox")

// newCheckStage is a Report stage whose checks run through a launcher of
// their own, in the sandbox the case keeps under sandboxKey.
func newCheckStage(t testing.TB) Stage {
	t.Helper()
	l := commands.NewLauncher("")
	t.Cleanup(func() { _ = l.Close() })
	reads := testReads()
	reads.Sandbox = func(c *pipeline.Case) (CheckSandbox, error) {
		sb, _ := pipeline.Lookup(c, sandboxKey)
		if sb == nil {
			return CheckSandbox{}, errcode.New(errcode.Internal, "check: the case has no toolset or policy")
		}
		return *sb, nil
	}
	return New(Options{Reads: reads, Commands: l})
}

// sandboxPlan is the plan sandboxed cases are scored with.
var sandboxPlan = &scoring.Plan{PATH: "/usr/local/bin:/usr/bin:/bin"}

// checkOf returns the case's check score and logs/check.log.
func checkOf(t *testing.T, c *pipeline.Case) (scoring.Score, string) {
	t.Helper()
	log, _ := os.ReadFile(filepath.Join(c.SessionDir, filepath.FromSlash(scoring.CheckLog)))
	for _, s := range scoresOf(c) {
		if s.Name == scoring.TypeCheck {
			return s, string(log)
		}
	}
	t.Fatalf("no check score in %+v\ncheck.log:\n%s", scoresOf(c), log)
	return scoring.Score{}, ""
}

func expectedCheck(t *testing.T, command any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"check": command})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantUID is the uid a sandboxed check runs as.
func wantUID() int {
	if os.Getuid() == 0 {
		return 65534
	}
	return os.Getuid()
}

// TestCheckRunsSandboxed: the check runs as the tool user, in its own
// network namespace, sees no host file outside the system folders, cannot
// write outside the session, and its output still reaches check.log.
func TestCheckRunsSandboxed(t *testing.T) {
	host := sandboxHost(t)
	st := newCheckStage(t)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	outside := openTempDir(t)
	if err := os.Chmod(outside, 0o777); err != nil { // only the sandbox stops a write here
		t.Fatal(err)
	}
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("host secret"), 0o644); err != nil {
		t.Fatal(err)
	}

	script := fmt.Sprintf(`echo uid=$(id -u)
echo home=$HOME
touch inside && echo wrote inside
cat %[1]s && echo READ-HOST
touch %[2]s/escaped && echo WROTE-HOST
(exec 3<>/dev/tcp/127.0.0.1/%[3]d) 2>/dev/null && echo CONNECTED
cat /etc/hostname /root/.bashrc 2>/dev/null && echo READ-ETC
echo last line`, secret, outside, port)
	c := sandboxedCase(t, host, expectedCheck(t, []string{"bash", "-c", script}))
	if err := st.WithPlan(sandboxPlan).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	s, log := checkOf(t, c)
	if !s.Pass || s.Reason != "exit status 0" {
		t.Errorf("check = %+v\n%s", s, log)
	}
	for _, want := range []string{"uid=" + strconv.Itoa(wantUID()), "home=" + filepath.Join(c.SessionDir, scoring.CheckHome), "wrote inside", "last line"} {
		if !strings.Contains(log, want) {
			t.Errorf("check.log lacks %q:\n%s", want, log)
		}
	}
	for _, leak := range []string{"READ-HOST", "host secret", "WROTE-HOST", "CONNECTED", "READ-ETC"} {
		if strings.Contains(log, leak) {
			t.Errorf("the check escaped (%s):\n%s", leak, log)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "escaped")); err == nil {
		t.Errorf("the check wrote outside the session folder")
	}
	if _, err := os.Stat(filepath.Join(c.SessionDir, "inside")); err != nil {
		t.Errorf("the check could not write in the session folder: %v", err)
	}
}

// TestCheckPlantedModuleRunsConfined is finding 3 of issue 13: a tool plants
// json/__init__.py in the session and the check runs python3 -m json.tool
// there. The planted code may run, but as the tool user, inside the sandbox.
func TestCheckPlantedModuleRunsConfined(t *testing.T) {
	host := sandboxHost(t)
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	st := newCheckStage(t)
	outside := openTempDir(t)
	if err := os.Chmod(outside, 0o777); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(outside, "pwned")
	c := sandboxedCase(t, host, expectedCheck(t, py+" -m json.tool out.json"))
	planted := fmt.Sprintf(`import os
print("planted uid=%%d" %% os.getuid(), flush=True)
try:
    open(%q, "w").write("pwned")
    print("PLANTED-WROTE-HOST", flush=True)
except OSError as e:
    print("planted write refused:", e, flush=True)
`, marker)
	if err := os.MkdirAll(filepath.Join(c.SessionDir, "json"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.SessionDir, "json", "__init__.py"), []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.SessionDir, "out.json"), []byte(`{"a": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := st.WithPlan(sandboxPlan).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	s, log := checkOf(t, c)
	if _, err := os.Stat(marker); err == nil || strings.Contains(log, "PLANTED-WROTE-HOST") {
		t.Fatalf("the planted module wrote %s on the host:\n%s", marker, log)
	}
	if strings.Contains(log, "planted uid=") && !strings.Contains(log, "planted uid="+strconv.Itoa(wantUID())) {
		t.Errorf("the planted module ran with another uid than the tool user's %d:\n%s", wantUID(), log)
	}
	t.Logf("check = %+v\n%s", s, log)
}

// TestCheckTimesOutWithItsChildren: a check that leaves a sleeper holding
// its output is stopped at its own deadline, everything it started with it.
func TestCheckTimesOutWithItsChildren(t *testing.T) {
	host := sandboxHost(t)
	st := newCheckStage(t)
	c := sandboxedCase(t, host, `{"check": {"command": "sleep 30 & echo started; sleep 30", "timeout_seconds": 0.3}}`)
	start := time.Now()
	if err := st.WithPlan(sandboxPlan).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	s, log := checkOf(t, c)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the check took %s to stop", took)
	}
	if s.Pass || s.Reason != "timed out after 300ms: started" || !strings.Contains(log, "check timed out") {
		t.Errorf("check = %+v, log %q; want a failure that it timed out, with the last line", s, log)
	}
}

// TestCheckFailsWithTheLastLine: a failing check is the model's failure,
// with the last line of its output (stdout and stderr in order).
func TestCheckFailsWithTheLastLine(t *testing.T) {
	host := sandboxHost(t)
	st := newCheckStage(t)
	c := sandboxedCase(t, host, expectedCheck(t, []string{"sh", "-c", "echo first; echo 'assertion failed: 41 != 42' >&2; exit 3"}))
	if err := st.WithPlan(sandboxPlan).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if s, log := checkOf(t, c); s.Pass || s.Reason != "exit status 3: assertion failed: 41 != 42" || !strings.Contains(log, "first\nassertion failed") {
		t.Errorf("check = %+v\n%s", s, log)
	}
}

// TestCheckRefusedWithoutNamespaces: on a host that cannot make the
// namespaces the check is an error (E-CAP-005), never run as murmur-eval's
// user.
func TestCheckRefusedWithoutNamespaces(t *testing.T) {
	st := newCheckStage(t)
	c := sandboxedCase(t, sandbox.Host{UserNSReason: "operation not permitted"}, `{"check": "touch ran"}`)
	err := st.WithPlan(sandboxPlan).Run(context.Background(), c)
	if !errcode.Is(err, errcode.CapEgressNamespace) {
		t.Fatalf("Run = %v, want %s", err, errcode.CapEgressNamespace)
	}
	if _, serr := os.Stat(filepath.Join(c.SessionDir, "ran")); serr == nil {
		t.Errorf("the check ran")
	}
	if log, _ := os.ReadFile(filepath.Join(c.SessionDir, filepath.FromSlash(scoring.CheckLog))); !strings.Contains(string(log), "operation not permitted") {
		t.Errorf("check.log = %q, want the refusal", log)
	}
	c.Stages = append(c.Stages, pipeline.StageResult{Stage: Name, Outcome: pipeline.Failed, Err: err})
	if v := pipeline.Judge(c); v.Status != pipeline.StatusError || v.Stage != Name {
		t.Errorf("verdict %+v, want error at report", v)
	}
}

// TestCheckUnreachableSessionIsRefused: as root, a session below a folder
// others cannot search is refused up front with a hint.
func TestCheckUnreachableSessionIsRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("only root's checks change uid")
	}
	host := sandboxHost(t)
	st := newCheckStage(t)
	c := endedCase(t, trace.ExitOK, "42", `{"check": "true"}`) // t.TempDir is 0700
	pipeline.Store(c, sandboxKey, &CheckSandbox{Host: commands.Host{Probe: host}, Resources: testResources()})
	if err := st.Run(context.Background(), c); !errcode.Is(err, errcode.IOPermission) {
		t.Errorf("Run = %v, want %s", err, errcode.IOPermission)
	}
}

// BenchmarkCheckStart is the cost of one trivial check through the sandbox
// (launcher, namespaces, Landlock), from score to check.log.
func BenchmarkCheckStart(b *testing.B) {
	host := sandboxHost(b)
	st := newCheckStage(b)
	dir := openTempDir(b)
	for i := 0; b.Loop(); i++ {
		sdir := filepath.Join(dir, strconv.Itoa(i))
		if err := os.Mkdir(sdir, 0o755); err != nil {
			b.Fatal(err)
		}
		c := &pipeline.Case{Input: checkInput(), SessionDir: sdir}
		pipeline.Store(c, sandboxKey, &CheckSandbox{Host: commands.Host{Probe: host}, Resources: testResources()})
		scores, err := (&scoring.Plan{}).Score(context.Background(), scoring.Input{SessionDir: sdir, Expected: checkInput().Expected,
			Checks: caseChecks{box: st.opts.Commands, sandbox: st.opts.Reads.Sandbox, c: c}})
		if err != nil || len(scores) != 1 || !scores[0].Pass {
			b.Fatalf("%+v %v", scores, err)
		}
	}
}

func checkInput() datasets.Case {
	return datasets.Case{ID: "bench", Expected: json.RawMessage(`{"check": ["/bin/true"]}`)}
}
